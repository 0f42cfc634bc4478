package session

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/redact"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// redactOutcome applies the project's redaction rules, and the detectors
// the session's policy names, to what a session call hands the model: the
// result, and a refusal's message and quoted provider body. Without either
// it returns out untouched, at the cost of a cache lookup.
func (s *Service) redactOutcome(ctx context.Context, tn tenant.Tenant, ss *Session, out Outcome) (Outcome, error) {
	set, err := s.redact.For(ctx, tn)
	if err != nil {
		return out, err
	}
	if len(ss.Spec.Policy.Redact) > 0 {
		set = set.With(ss.Spec.Policy.Redact)
	}
	if set == nil {
		return out, nil
	}
	if out.OK {
		out.Result = redactResult(set, out.Result)
		return out, nil
	}
	if out.Error != nil {
		r := *out.Error
		r.Message = set.Text(r.Message)
		if r.Upstream != nil {
			up := *r.Upstream
			up.Body = set.Text(up.Body)
			r.Upstream = &up
		}
		out.Error = &r
	}
	return out, nil
}

// redactResult redacts a tool's result. A project MCP server's answer with
// content blocks keeps its blocks: text (and embedded text resources) is
// redacted, images and audio pass as they are.
func redactResult(set *redact.Set, v any) any {
	r, ok := v.(*execute.MCPResult)
	if !ok {
		return set.Value(v)
	}
	out := &execute.MCPResult{StructuredContent: set.Value(r.StructuredContent), Content: make([]mcp.Content, len(r.Content))}
	for i, c := range r.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			t := *x
			t.Text = set.Text(x.Text)
			out.Content[i] = &t
		case *mcp.EmbeddedResource:
			e := *x
			if x.Resource != nil {
				res := *x.Resource
				res.Text = set.Text(res.Text)
				e.Resource = &res
			}
			out.Content[i] = &e
		default:
			out.Content[i] = c
		}
	}
	return out
}
