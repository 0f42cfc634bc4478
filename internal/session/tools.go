package session

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Formats of GET /v1/sessions/:id/tools.
const (
	FormatJSONSchema   = "json-schema"
	FormatOpenAIStrict = "openai-strict"
)

// Annotations are MCP-style hints derived from a tool's effect. MCP has no
// hint for irreversibility, so an irreversible tool says it through the two
// that come nearest (docs/sessions.md): destructiveHint, which hosts use to
// ask before running a tool, and openWorldHint, whose effect reaches
// beyond the connected account (recipients, a card network, the public).
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// ToolDef is one session tool (openapi.json, schema SessionTool).
type ToolDef struct {
	Kind        string          `json:"kind"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations Annotations     `json:"annotations"`
	Strict      *bool           `json:"strict,omitempty"`
}

// Kinds of session tools.
const (
	KindMeta   = "meta"
	KindAction = "action"
)

// Tools lists a session's tools: the meta tools its policy allows, then
// its pinned tools, in the format asked for.
func (s *Service) Tools(ss *Session, sc *Scope, format string) ([]ToolDef, error) {
	if format == "" {
		format = FormatJSONSchema
	}
	if format != FormatJSONSchema && format != FormatOpenAIStrict {
		return nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"format"}, Message: "must be json-schema or openai-strict"})
	}
	out := []ToolDef{}
	add := func(def ToolDef) error {
		if format == FormatOpenAIStrict {
			strict, err := s.cache.strictOf(def.InputSchema)
			if err != nil {
				return fmt.Errorf("session: strict schema of %s: %w", def.Name, err)
			}
			def.InputSchema = strict
			t := true
			def.Strict = &t
		}
		out = append(out, def)
		return nil
	}
	if ss.Spec.Mode == ModeTools {
		for _, t := range sc.Tools {
			if err := add(actionDef(t)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, m := range metaTools(ss.Spec.Policy) {
		if err := add(ToolDef{Kind: KindMeta, Name: m.name, Description: m.description, InputSchema: m.schema,
			Annotations: Annotations{ReadOnlyHint: m.readOnly, DestructiveHint: m.destructive, OpenWorldHint: m.openWorld}}); err != nil {
			return nil, err
		}
	}
	for _, id := range ss.Spec.Pinned {
		t, ok := sc.byID[id]
		if !ok {
			continue // turned off in the project since the session was made
		}
		if err := add(actionDef(t)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func actionDef(t *catalog.Tool) ToolDef {
	return ToolDef{Kind: KindAction, Name: t.ID, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema),
		Annotations: annotationsOf(t)}
}

// annotationsOf derives a tool's hints from its effect and irreversibility.
func annotationsOf(t *catalog.Tool) Annotations {
	return Annotations{
		ReadOnlyHint:    t.Effect == catalog.EffectRead,
		DestructiveHint: t.Effect == catalog.EffectDestructive || t.Irreversible,
		OpenWorldHint:   t.Irreversible,
	}
}
