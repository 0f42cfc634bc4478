package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/session"
)

// approvalInput is the id of the input request that asks for approval.
const approvalInput = "approval"

// canElicit reports whether the client of a call can be asked for an
// approval within the call: the per-request protocol (2026-07-28, whose
// multi round-trip results carry input requests back to the client of a
// stateless server) and the elicitation capability (form mode).
func canElicit(req *mcp.CallToolRequest) bool {
	if req.ProtocolVersion() < versionPerRequestMeta {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// approvalElicitation is the input-required result that asks the person
// at the client to approve a held call; the approval id travels as the
// request state the client sends back with the answer.
func approvalElicitation(r *session.Refusal) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: &mcp.ElicitParams{
			Mode:    "form",
			Message: r.Question(),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"approve": map[string]any{"type": "boolean", "title": "Approve this call", "description": "Run the call once, with exactly this input"},
				},
				"required": []string{"approve"},
			},
		}},
		RequestState: r.Approval.ID,
	}
}

// applyElicitation records the answer a retried call carries to an
// approval elicitation: accept with approve true approves, anything else
// denies. A call without such an answer is left alone.
func (s *Server) applyElicitation(ctx context.Context, t target, req *mcp.CallToolRequest) error {
	if req.Params == nil || req.Params.RequestState == "" || req.Params.InputResponses == nil {
		return nil
	}
	resp, ok := req.Params.InputResponses[approvalInput].(*mcp.ElicitResult)
	if !ok {
		return nil
	}
	approve := false
	if resp.Action == "accept" {
		approve, _ = resp.Content["approve"].(bool)
	}
	client := ""
	if info := req.ClientInfo(); info != nil {
		client = info.Name
	}
	err := s.sessions.DecideInClient(ctx, t.tenant, t.ss, req.Params.RequestState, approve, client)
	if e, ok := apierr.As(err); ok && e.Code == apierr.Conflict {
		// Decided already (an approver was quicker): the call answers by
		// that decision.
		return nil
	}
	return err
}
