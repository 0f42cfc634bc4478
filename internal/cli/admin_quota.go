package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/redact"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// adminQuota runs `admin quota create|list|update|delete`, the CLI form of
// /v1/quotas.
func (p *Program) adminQuota(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("quota " + verb)
	projectID := a.fs.String("project", "", "project id (required)")
	window := a.fs.String("window", "", "minute, hour or day")
	limit := a.fs.Int64("limit", 0, "the most calls allowed in one window")
	user := a.fs.String("user", "", "only this end user's calls")
	perUser := a.fs.Bool("per-user", false, "count each end user's calls apart")
	connector := a.fs.String("connector", "", "only calls to this connector (tools and the raw proxy)")
	tool := a.fs.String("tool", "", "only this tool, or tools starting with a prefix ending in *")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("usage: switchboard admin quota create --project ID --window minute|hour|day --limit N [--user U | --per-user] [--connector C] [--tool T] | list --project ID | update --project ID --window … --limit N QUOTA_ID | delete --project ID QUOTA_ID")
	}
	st, tn, err := a.openTenant(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := quota.New(st, nil)
	req := quota.Request{Window: *window, UserID: *user, PerUser: *perUser, ConnectorID: *connector, ToolID: *tool}
	if *limit != 0 {
		req.Limit = limit
	}
	switch verb {
	case "create", "update":
		if (verb == "create") != (len(pos) == 0) {
			return usagef("quota create takes no arguments; quota update takes the quota's id")
		}
		var q store.Quota
		if verb == "create" {
			q, err = svc.Create(ctx, tn, req)
		} else {
			q, err = svc.Update(ctx, tn, pos[0], req)
		}
		if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, quota.ViewOf(q))
		}
		fmt.Fprintf(p.Stdout, "quota %s: %s\n", q.ID, strings.TrimSuffix(quota.Describe(q), " is reached"))
		return nil
	case "list":
		list, err := svc.List(ctx, tn)
		if err != nil {
			return err
		}
		type row struct {
			quota.View
			Describes string `json:"-"`
		}
		rows := make([]row, len(list))
		for i, q := range list {
			rows[i] = row{quota.ViewOf(q), strings.TrimSuffix(quota.Describe(q), " is reached")}
		}
		return printList(p.Stdout, *a.asJSON, rows, "ID\tLIMIT", func(r row) []any { return []any{r.ID, r.Describes} })
	case "delete":
		if len(pos) != 1 {
			return usagef("usage: switchboard admin quota delete --project ID QUOTA_ID")
		}
		if err := svc.Delete(ctx, tn, pos[0]); err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"id": pos[0], "deleted": true})
		}
		fmt.Fprintf(p.Stdout, "deleted quota %s\n", pos[0])
		return nil
	}
	return usagef("unknown quota command %q", verb)
}

// patternFlag is one --pattern NAME=REGEXP.
var patternFlag = regexp.MustCompile(`^([^=]+)=(.+)$`)

// adminRedaction runs `admin redaction show|set|clear`, the CLI form of
// /v1/redaction.
func (p *Program) adminRedaction(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("redaction " + verb)
	projectID := a.fs.String("project", "", "project id (required)")
	detectors := a.fs.String("detectors", "", "comma-separated built-in detectors: email, phone, card, iban, secret")
	var patterns []string
	a.fs.Func("pattern", "a pattern of the project's own, NAME=REGEXP (repeatable)", func(v string) error {
		patterns = append(patterns, v)
		return nil
	})
	restExecute := a.fs.Bool("rest-execute", false, "also redact the answers of POST /v1/tools/execute and /v1/tools/proxy")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) > 0 {
		return usagef("usage: switchboard admin redaction show --project ID | set --project ID [--detectors email,card,…] [--pattern NAME=REGEXP]… [--rest-execute] | clear --project ID")
	}
	st, tn, err := a.openTenant(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := redact.New(st)
	var rules redact.Rules
	enabled := true
	switch verb {
	case "show":
		if rules, enabled, err = svc.Get(ctx, tn); err != nil {
			return err
		}
	case "set":
		r := redact.Rules{Detectors: splitCSV(*detectors), RESTExecute: *restExecute}
		for _, v := range patterns {
			m := patternFlag.FindStringSubmatch(v)
			if m == nil {
				return usagef("--pattern takes NAME=REGEXP, not %q", v)
			}
			r.Patterns = append(r.Patterns, redact.Pattern{Name: m[1], Pattern: m[2]})
		}
		if rules, err = svc.Put(ctx, tn, r); err != nil {
			return err
		}
	case "clear":
		if err := svc.Delete(ctx, tn); err != nil {
			return err
		}
		enabled = false
	default:
		return usagef("unknown redaction command %q", verb)
	}
	if *a.asJSON {
		if !enabled {
			rules = redact.Rules{Detectors: []string{}, Patterns: []redact.Pattern{}}
		}
		return printJSON(p.Stdout, struct {
			Enabled bool `json:"enabled"`
			redact.Rules
		}{enabled, rules})
	}
	if !enabled {
		fmt.Fprintf(p.Stdout, "project %s redacts nothing\n", *projectID)
		return nil
	}
	fmt.Fprintf(p.Stdout, "project %s redacts: detectors %s", *projectID, strings.Join(rules.Detectors, ", "))
	for _, pt := range rules.Patterns {
		fmt.Fprintf(p.Stdout, "; pattern %s = %s", pt.Name, pt.Pattern)
	}
	scope := "session and MCP tool results"
	if rules.RESTExecute {
		scope += ", and direct REST execute and proxy answers"
	}
	fmt.Fprintf(p.Stdout, "\napplied to: %s\n", scope)
	return nil
}
