package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Refusal is an answer a model can act on (docs/sessions.md), with a lowercase code.
type Refusal struct {
	Code       string           `json:"code"`
	Message    string           `json:"message"`
	Connector  string           `json:"connector,omitempty"`
	ConnectURL string           `json:"connectUrl,omitempty"`
	Issues     []apierr.Issue   `json:"issues,omitempty"`
	Choices    []apierr.Choice  `json:"choices,omitempty"`
	Upstream   *apierr.Upstream `json:"upstream,omitempty"`
	// RetryAfter, with rate_limited, is how many seconds to wait before
	// trying again (a quota's window, or the provider's Retry-After).
	RetryAfter int64 `json:"retryAfter,omitempty"`
	// Approval is the pending approval of an approval_required refusal.
	Approval *ApprovalRef `json:"approval,omitempty"`
	// clientApproval is true when the MCP client may approve in place;
	// question is what to ask its user.
	clientApproval bool
	question       string
}

// ApprovalRef names the approval a call waits for: its id, status, API URL
// and expiry.
type ApprovalRef struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ClientApproval reports whether the person at an MCP client may approve
// the refusal's approval in place (elicitation).
func (r *Refusal) ClientApproval() bool { return r != nil && r.clientApproval }

// Question is what an MCP client asks its user to approve in place.
func (r *Refusal) Question() string { return r.question }

// Outcome is the answer of a session tool call: {ok: true, result} or
// {ok: false, error}.
type Outcome struct {
	OK     bool
	Result any
	Error  *Refusal
	// Decision is the policy decision of a tool or proxy call, for the
	// execution log; it is not part of the answer.
	Decision *policy.Record
}

// MarshalJSON writes {ok, result} or {ok, error}.
func (o Outcome) MarshalJSON() ([]byte, error) {
	if o.OK {
		return json.Marshal(struct {
			OK     bool `json:"ok"`
			Result any  `json:"result"`
		}{true, o.Result})
	}
	return json.Marshal(struct {
		OK    bool     `json:"ok"`
		Error *Refusal `json:"error"`
	}{false, o.Error})
}

func refuse(code, format string, args ...any) Outcome {
	return Outcome{Error: &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// Call runs one session tool. An unknown tool name is 404 TOOL_NOT_FOUND;
// everything a model can act on comes back as a refusal. A call that acts
// (a tool, and the meta tools that run, proxy, connect or disconnect) is
// recorded in the execution log with via, the request it came with;
// searching and listing accounts are not.
func (s *Service) Call(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope, name string, args json.RawMessage, via execlog.Origin) (Outcome, error) {
	if err := sessionTenant(tn, ss); err != nil {
		return Outcome{}, err
	}
	rec := via.Entry(ss.ProjectID, ss.Spec.UserID)
	if ss.EndpointID != "" {
		rec.EndpointID = ss.EndpointID
	} else {
		rec.SessionID = ss.ID
	}
	s.log.Open(&rec)
	out, err := s.call(ctx, tn, ss, sc, name, args, &rec)
	if err == nil {
		// Before the log takes the outcome: what the model may not see,
		// the log does not keep either.
		out, err = s.redactOutcome(ctx, tn, ss, out)
	}
	if rec.Tool != "" {
		switch {
		case err != nil:
			rec.Outcome = execlog.Outcome(err)
		case !out.OK:
			rec.Outcome = out.Error.Code
		}
		if rec.Payloads {
			rec.Input = args
			rec.Output = payloadOf(out, err)
		}
		s.log.Add(&rec)
	}
	return out, err
}

// payloadOf is what the log stores as a session call's output: its
// outcome, or the error envelope its caller was answered with.
func payloadOf(out Outcome, err error) any {
	if err == nil {
		return out
	}
	if e, ok := apierr.As(err); ok {
		return e.Envelope()
	}
	return nil
}

// call runs one session tool; rec.Tool is set when the call acts.
func (s *Service) call(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope, name string, args json.RawMessage, rec *execlog.Entry) (Outcome, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	if ss.Spec.Mode == ModeTools {
		if sc.Has(name) {
			return s.runAction(ctx, tn, ss, sc, name, args, "", rec)
		}
	} else {
		meta := metaTools(ss.Spec.Policy)
		if i := slices.IndexFunc(meta, func(m metaTool) bool { return m.name == name }); i >= 0 {
			return s.callMeta(ctx, tn, ss, sc, name, args, rec)
		}
		if slices.Contains(ss.Spec.Pinned, name) && sc.Has(name) {
			return s.runAction(ctx, tn, ss, sc, name, args, "", rec)
		}
	}
	rec.Tool = name
	return Outcome{}, apierr.New(apierr.ToolNotFound, "session %s has no tool %q; GET /v1/sessions/%s/tools lists them", ss.ID, name, ss.ID)
}

func (s *Service) callMeta(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope, name string, args json.RawMessage, rec *execlog.Entry) (Outcome, error) {
	switch name {
	case MetaExecute, MetaConnect, MetaDisconnect, MetaProxy:
		// These act; the branches below name what they act on.
		rec.Tool = name
	}
	var a struct {
		Queries   []string        `json:"queries"`
		Action    string          `json:"action"`
		Input     json.RawMessage `json:"input"`
		Account   *string         `json:"account"`
		Connector *string         `json:"connector"`
		Endpoint  string          `json:"endpoint"`
		Method    *string         `json:"method"`
		Query     map[string]any  `json:"query"`
		Body      json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return invalidArgs(apierr.Issue{Code: apierr.IssueInvalidType, Path: []any{}, Message: "arguments must be an object matching the tool's input schema"}), nil
	}
	account := ""
	if a.Account != nil {
		account = *a.Account
	}
	connector := ""
	if a.Connector != nil {
		connector = *a.Connector
	}
	switch name {
	case MetaSearch:
		if len(a.Queries) == 0 || len(a.Queries) > 10 {
			return invalidArgs(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"queries"}, Message: "give 1 to 10 queries"}), nil
		}
		return s.search(ctx, tn, ss, sc, a.Queries)
	case MetaExecute:
		if a.Action == "" {
			return invalidArgs(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"action"}, Message: "name the action to run"}), nil
		}
		return s.runAction(ctx, tn, ss, sc, a.Action, a.Input, account, rec)
	case MetaConnect:
		rec.ConnectorID = connector
		if !sc.HasConnector(connector) {
			return refuse("not_in_scope", "%q is not an application of this session", connector), nil
		}
		return s.connectLink(ctx, tn, ss, connector, "connect")
	case MetaList:
		accts, err := s.accountsOf(ctx, tn, ss)
		if err != nil {
			return Outcome{}, err
		}
		list := []AccountView{}
		for _, c := range sc.Connectors {
			if connector == "" || connector == c.ID {
				list = append(list, accts[c.ID]...)
			}
		}
		return Outcome{OK: true, Result: map[string]any{"accounts": list}}, nil
	case MetaDisconnect:
		rec.ConnectorID = connector
		return s.disconnect(ctx, tn, ss, sc, connector, account, rec)
	case MetaProxy:
		rec.ConnectorID = connector
		method := "GET"
		if a.Method != nil {
			method = *a.Method
		}
		rec.Tool = execlog.ProxyTool(method, a.Endpoint)
		if !sc.HasConnector(connector) {
			return refuse("not_in_scope", "%q is not an application of this session", connector), nil
		}
		if a.Endpoint == "" {
			return invalidArgs(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"endpoint"}, Message: "give a path relative to the API base URL"}), nil
		}
		if !slices.Contains(execute.ProxyMethods, method) {
			return invalidArgs(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"method"}, Message: "must be one of GET, POST, PUT, PATCH, DELETE"}), nil
		}
		if ss.Spec.Policy.ReadOnly && method != "GET" {
			return refuse("read_only", "this session is read-only; %s sends only GET requests", MetaProxy), nil
		}
		pref := account
		if pref == "" {
			pref = ss.Spec.Accounts[connector]
		}
		pc, err := policyContext(ss)
		if err != nil {
			return Outcome{}, err
		}
		pc.APIKeyID = rec.APIKeyID
		res, err := s.exec.ProxyLogged(ctx, tn, execute.ProxyCall{ConnectorID: connector, UserID: ss.Spec.UserID,
			Endpoint: a.Endpoint, Method: method, Query: a.Query, Body: a.Body, AllowGlobal: ss.Spec.AllowGlobalAccounts, Preferred: pref,
			Policy: pc}, rec)
		o, err := s.outcome(ctx, tn, ss, connector, res, err)
		o.Decision = pc.Decision
		return o, err
	}
	return Outcome{}, fmt.Errorf("session: meta tool %s has no handler", name)
}

func invalidArgs(issues ...apierr.Issue) Outcome {
	msgs := make([]string, len(issues))
	for i, is := range issues {
		msgs[i] = is.Message
	}
	return Outcome{Error: &Refusal{Code: "invalid_arguments", Message: strings.Join(msgs, "; "), Issues: issues}}
}

// runAction runs a tool of the scope for the session's user.
func (s *Service) runAction(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope, id string, input json.RawMessage, account string, rec *execlog.Entry) (Outcome, error) {
	rec.Tool = id
	tool, ok := tn.Catalog.Tool(id)
	if !ok {
		return refuse("not_in_scope", "there is no action %q; find actions with %s", id, MetaSearch), nil
	}
	rec.ConnectorID = tool.Connector().ID
	if !sc.Has(id) {
		switch excluded(ss.Spec, tool) {
		case "read_only":
			return refuse("read_only", "this session is read-only and %s changes data", id), nil
		case "data_class_not_allowed":
			return refuse("data_class_not_allowed", "%s handles %s data, above what this session allows (%s)", id, tool.Classification(), ss.Spec.Policy.MaxDataClass), nil
		}
		return refuse("not_in_scope", "%s is not an action of this session", id), nil
	}
	decoded, err := s.normalizeInput(tool, input)
	if err != nil {
		return invalidArgs(apierr.Issue{Code: apierr.IssueInvalidType, Path: []any{"input"}, Message: "must be an object"}), nil
	}
	connector := tool.Connector().ID
	pref := account
	if pref == "" {
		pref = ss.Spec.Accounts[connector]
	}
	pc, err := policyContext(ss)
	if err != nil {
		return Outcome{}, err
	}
	pc.APIKeyID = rec.APIKeyID
	call := execute.Call{ToolID: id, Input: input, UserID: ss.Spec.UserID,
		AllowGlobal: ss.Spec.AllowGlobalAccounts, Preferred: pref, Policy: pc}
	// An object goes to execute decoded, to be validated as it is; anything
	// else goes as sent, for execute's own answer to a non-object input.
	if m, ok := decoded.(map[string]any); ok {
		call.Input, call.Decoded = nil, m
	}
	res, err := s.exec.ExecuteLogged(ctx, tn, call, rec)
	o, err := s.outcome(ctx, tn, ss, connector, res, err)
	o.Decision = pc.Decision
	return o, err
}

// policyContext is what the policy decision of a session's call needs:
// the session, its endpoint and its own rules, and a record to fill.
func policyContext(ss *Session) (execute.PolicyContext, error) {
	pc := execute.PolicyContext{SessionID: ss.ID, Decision: &policy.Record{}}
	if slug, ok := strings.CutPrefix(ss.ID, "endpoint:"); ok {
		pc.Endpoint = slug
	}
	rules, err := policy.CompileSession(ss.Spec.Policy.Rules)
	if err != nil {
		return pc, fmt.Errorf("session %s: stored policy rules do not compile: %w", ss.ID, err)
	}
	pc.SessionRules = rules
	return pc, nil
}

// normalizeInput decodes a tool input once, as execute decodes one
// (numbers as json.Number), drops nulls of optional fields and decodes
// strict-mode JSON strings, against the tool's original schema. A missing
// or null input is {}.
func (s *Service) normalizeInput(tool *catalog.Tool, raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	schema := s.cache.parsedSchema(tool)
	return normalizeArgs(schema.schema, schema.defs, v), nil
}

// decodeJSON decodes one JSON value with numbers as json.Number, as
// execute validates and sends them.
func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("session: data after the JSON value")
	}
	return v, nil
}

// outcome maps an execution's error to a refusal a model can act on;
// errors no model can fix (a broken key ring, the database) stay errors.
func (s *Service) outcome(ctx context.Context, tn tenant.Tenant, ss *Session, connector string, res any, err error) (Outcome, error) {
	if err == nil {
		return Outcome{OK: true, Result: res}, nil
	}
	if held, ok := errors.AsType[*policy.ApprovalRequiredError](err); ok {
		a := held.Approval
		return Outcome{Error: &Refusal{Code: "approval_required", Connector: connector, clientApproval: held.ClientApproval,
			question: policy.ElicitMessage(a),
			Approval: &ApprovalRef{ID: a.ID, Status: a.Status, URL: a.URL, ExpiresAt: a.ExpiresAt},
			Message: "a person must approve this call first (approval " + a.ID + "); tell the user it waits for approval, " +
				"then make exactly the same call again once it is approved; it expires at " + a.ExpiresAt.Format(time.RFC3339)}}, nil
	}
	var scopes *execute.MissingScopesError
	if errors.As(err, &scopes) {
		// The link reconnects the account that lacks the scopes, asking for
		// them beside those it was granted (incremental authorization);
		// a global account is not the user's to reconnect.
		req := connect.Request{UserID: ss.Spec.UserID, Connectors: []string{connector}}
		if c, gerr := s.store.GetConnection(ctx, ss.ProjectID, scopes.ConnectionID); gerr == nil && !c.Global {
			req.ConnectionID, req.Scopes = c.ID, scopes.Missing
		}
		o, lerr := s.refusalLink(ctx, tn, req, "missing_scopes")
		if lerr != nil {
			return Outcome{}, lerr
		}
		o.Error.Message = scopes.RefusalMessage()
		return o, nil
	}
	e, ok := apierr.As(err)
	if !ok {
		return Outcome{}, err
	}
	r := &Refusal{Message: e.Message, Connector: connector, Upstream: e.Upstream}
	if e.Code == apierr.RateLimited || (e.Upstream != nil && e.Upstream.Status == http.StatusTooManyRequests) {
		// A quota of the project, or the provider's own limit: either way
		// the model can wait and try again.
		r.Code, r.RetryAfter = "rate_limited", retryAfterSeconds(e.RetryAfter, s.now())
		return Outcome{Error: r}, nil
	}
	switch e.Code {
	case apierr.MissingConnection:
		o, lerr := s.connectLink(ctx, tn, ss, connector, "connection_required")
		if lerr != nil {
			return Outcome{}, lerr
		}
		o.Error.Message = "the user has not connected " + connector + "; show them the link to connect it, then try again"
		return o, nil
	case apierr.ReauthRequired:
		o, lerr := s.connectLink(ctx, tn, ss, connector, "reauth_required")
		if lerr != nil {
			return Outcome{}, lerr
		}
		o.Error.Message = "the user's " + connector + " account must be reconnected; show them the link, then try again"
		return o, nil
	case apierr.ValidationError:
		r.Code, r.Issues = "invalid_arguments", e.Issues
	case apierr.AmbiguousConnection:
		r.Code, r.Choices = "ambiguous_account", e.Choices
		r.Message = "the user has several " + connector + " accounts; run again with account set to one of the choices"
	case apierr.ActionDisabled:
		r.Code = "action_disabled"
	case apierr.UpstreamError:
		r.Code = "upstream_error"
	case apierr.ExecutionError:
		r.Code = "execution_error"
	case apierr.ConnectionNotFound:
		r.Code = "invalid_arguments"
	case apierr.ToolNotFound:
		r.Code = "not_in_scope"
	case apierr.ForbiddenEndpoint:
		r.Code = "forbidden_endpoint"
	case apierr.PolicyDenied:
		r.Code = "policy_denied"
	case apierr.ApprovalDenied:
		r.Code = "approval_denied"
	default:
		return Outcome{}, err
	}
	return Outcome{Error: r}, nil
}

// retryAfterSeconds reads a Retry-After value (delay-seconds or an HTTP
// date) as whole seconds from now; 0 when there is none or it is not
// readable.
func retryAfterSeconds(v string, now time.Time) int64 {
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		return max(0, n)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(1, int64(math.Ceil(t.Sub(now).Seconds())))
	}
	return 0
}

// connectLink answers with a fresh connect link for the user and connector,
// as a refusal (code) or, for the connect meta tool, as a result.
func (s *Service) connectLink(ctx context.Context, tn tenant.Tenant, ss *Session, connector, code string) (Outcome, error) {
	return s.refusalLink(ctx, tn, connect.Request{UserID: ss.Spec.UserID, Connectors: []string{connector}}, code)
}

// refusalLink is connectLink for a link request of its own.
func (s *Service) refusalLink(ctx context.Context, tn tenant.Tenant, req connect.Request, code string) (Outcome, error) {
	connector := req.Connectors[0]
	link, err := s.links.Create(ctx, tn, req)
	if err != nil {
		return Outcome{}, err
	}
	if code == "connect" {
		return Outcome{OK: true, Result: map[string]any{"connector": connector, "url": link.URL, "expiresAt": link.ExpiresAt,
			"instructions": "Show this link to the user; they connect their account there. It works once."}}, nil
	}
	return Outcome{Error: &Refusal{Code: code, Connector: connector, ConnectURL: link.URL}}, nil
}

func (s *Service) disconnect(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope, connector, ref string, rec *execlog.Entry) (Outcome, error) {
	if !sc.HasConnector(connector) {
		return refuse("not_in_scope", "%q is not an application of this session", connector), nil
	}
	conns, err := s.store.ConnectorConnections(ctx, ss.ProjectID, ss.Spec.UserID, connector)
	if err != nil {
		return Outcome{}, err
	}
	i := slices.IndexFunc(conns, func(c store.Connection) bool {
		return !c.Global && account.MatchesRef(c, ref)
	})
	if i < 0 {
		return invalidArgs(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"account"},
			Message: fmt.Sprintf("the user has no %s account %q; %s lists them", connector, ref, MetaList)}), nil
	}
	rec.ConnectionID = conns[i].ID
	if err := s.accounts.Delete(ctx, ss.ProjectID, conns[i].ID); err != nil {
		return s.outcome(ctx, tn, ss, connector, nil, err)
	}
	return Outcome{OK: true, Result: map[string]any{"disconnected": conns[i].ID, "connector": connector}}, nil
}

// search runs each query against the catalog's index, within scope. A
// query written as several steps ("look up the customer and then refund")
// is ranked step by step: its actions interleave the steps' best, and
// steps lists each step's own in order. Every action carries its relevance
// (score, 0 to 1); a result whose best action scores under
// catalog.MatchThreshold says so (match "weak", or "none" without any),
// with a note, so that a model does not act on a wrong tool.
func (s *Service) search(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope, queries []string) (Outcome, error) {
	accts, err := s.accountsOf(ctx, tn, ss)
	if err != nil {
		return Outcome{}, err
	}
	type action struct {
		ID          string          `json:"id"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Connector   string          `json:"connector"`
		Effect      string          `json:"effect"`
		Connection  string          `json:"connection"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Score       float64         `json:"score"`
	}
	type step struct {
		Query   string   `json:"query"`
		Actions []action `json:"actions"`
		Match   string   `json:"match"`
	}
	type result struct {
		Query   string   `json:"query"`
		Actions []action `json:"actions"`
		Match   string   `json:"match"`
		Note    string   `json:"note,omitempty"`
		Steps   []step   `json:"steps,omitempty"`
	}
	top := func(hits []catalog.ToolHit) []action {
		out := []action{}
		for i := 0; i < len(hits) && i < 5; i++ {
			t := hits[i].Tool
			out = append(out, action{ID: t.ID, Name: t.Name, Description: t.Description, Connector: t.Connector().ID,
				Effect: t.Effect, Connection: ss.statusOf(t.Connector().ID, accts[t.Connector().ID]), InputSchema: s.cache.schema(t),
				Score: math.Round(hits[i].Relevance*100) / 100})
		}
		return out
	}
	var out []result
	for _, q := range queries {
		ans := tn.Catalog.SearchSteps(q, func(t *catalog.Tool) bool { return sc.Has(t.ID) })
		r := result{Query: q, Actions: top(ans.Hits), Match: matchOf(ans.Hits)}
		weak := r.Match != matchGood
		for _, st := range ans.Steps {
			m := matchOf(st.Hits)
			weak = weak || m != matchGood
			r.Steps = append(r.Steps, step{Query: st.Query, Actions: top(st.Hits), Match: m})
		}
		if weak {
			r.Note = weakMatchNote(ss.Spec.Policy)
		}
		out = append(out, r)
	}
	return Outcome{OK: true, Result: map[string]any{"results": out,
		"next": "Run an action with " + MetaExecute + " {action, input}; if its connection is missing, get a link with " + MetaConnect + "."}}, nil
}

// How well a search result matches its query.
const (
	matchGood = "good"
	matchWeak = "weak"
	matchNone = "none"
)

// matchOf says whether the best of hits matches its request well.
func matchOf(hits []catalog.ToolHit) string {
	switch {
	case len(hits) == 0:
		return matchNone
	case hits[0].Relevance < catalog.MatchThreshold:
		return matchWeak
	}
	return matchGood
}

// weakMatchNote is what a result whose best action (or a step's) matches
// poorly tells the model, pointing at the proxy when the session has it.
func weakMatchNote(p Policy) string {
	note := "No action matches this request (or one of its steps) well: do not run one of these unless it clearly does what the user asked; " +
		"tell the user it cannot be done here, or ask what they meant."
	if p.AllowProxy {
		note += " If a connected application's API can do it, " + MetaProxy + " sends a raw request to it."
	}
	return note
}

// compactSchema shortens long descriptions so search results stay small.
func compactSchema(raw json.RawMessage) json.RawMessage {
	var s any
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	var trim func(v any)
	trim = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if d, ok := x["description"].(string); ok && utf8.RuneCountInString(d) > 120 {
				x["description"] = string([]rune(d)[:117]) + "..."
			}
			for _, c := range x {
				trim(c)
			}
		case []any:
			for _, c := range x {
				trim(c)
			}
		}
	}
	trim(s)
	b, _ := json.Marshal(s)
	return b
}
