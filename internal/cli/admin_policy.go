package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/policy"
)

// adminPolicy runs `admin policy list|create|delete|default`, the CLI form
// of /v1/policies. A change applies to the next call on every replica.
func (p *Program) adminPolicy(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("policy " + verb)
	projectID := a.fs.String("project", "", "project id (required)")
	rule := a.fs.String("rule", "", `the rule as JSON, as POST /v1/policies takes it, e.g. '{"decision":"ask","match":{"tool":"stripe_create_refund"}}'`)
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("usage: switchboard admin policy list --project ID | create --project ID --rule JSON | delete --project ID RULE_ID | default --project ID allow|ask|deny")
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := policy.NewService(policy.Options{Store: st})
	switch verb {
	case "create":
		if len(pos) > 0 || *rule == "" {
			return usagef("usage: switchboard admin policy create --project ID --rule JSON")
		}
		req, err := policy.ParseRuleRequest([]byte(*rule))
		if err != nil {
			return err
		}
		tn, err := projectTenant(ctx, st, *projectID)
		if err != nil {
			return err
		}
		v, err := svc.CreateRule(ctx, tn, req)
		if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, v)
		}
		fmt.Fprintf(p.Stdout, "created policy rule %s (%s, %s level, priority %d)\n", v.ID, v.Decision, v.Level, v.Priority)
		return nil
	case "list":
		if len(pos) > 0 {
			return usagef("usage: switchboard admin policy list --project ID [--json]")
		}
		rules, def, err := svc.ListRules(ctx, *projectID)
		if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"defaultDecision": def, "rules": rules})
		}
		fmt.Fprintf(p.Stdout, "default decision: %s\n", def)
		return printList(p.Stdout, false, rules, "ID\tLEVEL\tENDPOINT\tPRIORITY\tDECISION\tMATCH", func(r policy.RuleView) []any {
			return []any{r.ID, r.Level, r.Endpoint, r.Priority, string(r.Decision), matchJSON(r.Match)}
		})
	case "delete":
		if len(pos) != 1 {
			return usagef("usage: switchboard admin policy delete --project ID RULE_ID")
		}
		if err := svc.DeleteRule(ctx, *projectID, pos[0]); err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]string{"id": pos[0]})
		}
		fmt.Fprintf(p.Stdout, "deleted policy rule %s\n", pos[0])
		return nil
	case "default":
		if len(pos) != 1 {
			return usagef("usage: switchboard admin policy default --project ID allow|ask|deny")
		}
		if err := svc.SetDefault(ctx, *projectID, policy.Decision(pos[0])); err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]string{"defaultDecision": pos[0]})
		}
		fmt.Fprintf(p.Stdout, "calls no project rule matches now get: %s\n", pos[0])
		return nil
	}
	return usagef("unknown policy command %q", verb)
}

func policyVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminPolicy(ctx, verb, args) }
}

// matchJSON is a rule's match as compact JSON, for the table.
func matchJSON(m policy.Match) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}
