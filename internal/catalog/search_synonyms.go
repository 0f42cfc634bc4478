package catalog

import "sort"

// synonymGroup is a set of words people use for the same thing. A group
// with a scope holds only within it: connector ids or categories ("card"
// is a task in Trello, "text" an SMS in Twilio, "bill" a vendor bill in
// accounting and a charge in payments).
type synonymGroup struct {
	words []string
	scope []string
}

// synonymGroups: a query word is expanded with the rest of its groups, at
// a lower weight, and only over the tools of the group's scope.
var synonymGroups = []synonymGroup{
	{words: []string{"create", "add", "new", "make", "submit", "start", "insert", "raise"}},
	{words: []string{"list", "show", "browse", "view", "see", "enumerate", "all"}},
	{words: []string{"get", "fetch", "retrieve", "read", "detail", "info", "look", "check"}},
	{words: []string{"update", "edit", "change", "modify", "rename", "set", "patch", "adjust", "tweak"}},
	{words: []string{"delete", "remove", "erase", "destroy", "drop", "trash", "discard", "purge", "wipe"}},
	{words: []string{"search", "find", "query", "lookup", "look", "filter"}},
	{words: []string{"send", "post", "notify", "tell", "ping", "write", "message", "dm", "shoot"}},
	{words: []string{"cancel", "abort", "void", "revoke", "stop"}},
	{words: []string{"archive", "close", "shelve"}},
	{words: []string{"upload", "put", "store"}},
	{words: []string{"download", "export"}},
	{words: []string{"invite", "onboard"}},
	{words: []string{"assign", "delegate", "allocate", "reassign"}},
	{words: []string{"comment", "reply", "respond", "note", "remark", "annotate", "answer"}},
	{words: []string{"schedule", "book", "plan", "arrange"}},
	{words: []string{"share", "permission", "grant", "access"}},
	{words: []string{"refund", "reimburse", "chargeback", "return"}, scope: []string{"finance", "commerce"}},
	{words: []string{"charge", "payment", "pay"}, scope: []string{"finance", "commerce"}},
	{words: []string{"issue", "bug", "ticket", "defect", "problem"}},
	{words: []string{"repository", "repo", "codebase"}},
	{words: []string{"pullrequest", "pr", "mr"}},
	{words: []string{"email", "mail", "inbox", "gmail"}},
	{words: []string{"meeting", "call", "appointment", "event", "invite"},
		scope: []string{"google_calendar", "outlook", "zoom", "calendly", "microsoft_teams"}},
	{words: []string{"document", "doc", "file", "page"}},
	{words: []string{"spreadsheet", "sheet", "excel", "workbook"}},
	{words: []string{"row", "record", "entry", "line"}},
	{words: []string{"customer", "client", "buyer", "shopper"}},
	{words: []string{"contact", "person", "lead", "prospect"}, scope: []string{"crm", "marketing", "outlook", "finance"}},
	{words: []string{"user", "member", "person", "teammate", "colleague", "employee", "staff"}},
	{words: []string{"deal", "opportunity"}, scope: []string{"crm"}},
	{words: []string{"invoice", "bill", "receipt"}, scope: []string{"finance", "commerce"}},
	{words: []string{"channel", "room"}},
	{words: []string{"folder", "directory", "dir"}},
	{words: []string{"task", "todo", "chore", "subtask"}},
	{words: []string{"task", "card"}, scope: []string{"trello"}},
	{words: []string{"task", "item"}, scope: []string{"monday"}},
	{words: []string{"company", "organization", "organisation", "org", "business"}},
	{words: []string{"message", "msg", "chat", "conversation"}},
	{words: []string{"message", "text", "sms"}, scope: []string{"twilio"}},
	{words: []string{"calendar", "agenda"}},
	{words: []string{"release", "version"}},
	{words: []string{"label", "tag"}},
	{words: []string{"subscription", "plan", "recurring", "membership"}, scope: []string{"stripe"}},
	{words: []string{"product", "item", "sku", "merchandise"}, scope: []string{"commerce"}},
	{words: []string{"order", "purchase", "sale", "sell", "sold"}, scope: []string{"commerce"}},
	{words: []string{"incident", "outage", "alert"}},
	{words: []string{"workflow", "pipeline", "build", "ci", "action", "job"}, scope: []string{"github", "gitlab"}},
	{words: []string{"merge", "land"}},
	{words: []string{"transition", "move"}, scope: []string{"jira"}},
	{words: []string{"link", "url"}},
	{words: []string{"group", "team"}},
	{words: []string{"password", "credential"}},
	{words: []string{"error", "exception", "crash", "issue"}, scope: []string{"sentry"}},
}

// synonym is one expansion of a query term, scoped or not.
type synonym struct {
	term  string
	scope []string // connector ids or categories; empty: everywhere
}

// inScope reports whether a tool of connector con is in the synonym's scope.
func (s synonym) inScope(con *Connector) bool {
	if len(s.scope) == 0 {
		return true
	}
	for _, sc := range s.scope {
		if sc == con.ID || sc == con.Category {
			return true
		}
	}
	return false
}

// synonymsOf returns the other terms of every synonym group term is in,
// sorted, a term that holds everywhere before its scoped forms.
func synonymsOf(term string) []synonym { return synonymIndex[term] }

var synonymIndex = func() map[string][]synonym {
	out := map[string][]synonym{}
	for _, g := range synonymGroups {
		var stems []string
		for _, w := range g.words {
			stems = append(stems, terms(w)...)
		}
		for _, s := range stems {
			for _, o := range stems {
				if o != s {
					out[s] = append(out[s], synonym{term: o, scope: g.scope})
				}
			}
		}
	}
	for s, syns := range out {
		sort.SliceStable(syns, func(i, j int) bool {
			if syns[i].term != syns[j].term {
				return syns[i].term < syns[j].term
			}
			return len(syns[i].scope) == 0 && len(syns[j].scope) > 0
		})
		// Keep one entry per term: the unscoped one, or the scopes merged.
		var merged []synonym
		for _, sy := range syns {
			if n := len(merged); n > 0 && merged[n-1].term == sy.term {
				if len(merged[n-1].scope) > 0 {
					merged[n-1].scope = append(append([]string(nil), merged[n-1].scope...), sy.scope...)
				}
				continue
			}
			merged = append(merged, sy)
		}
		out[s] = merged
	}
	return out
}()
