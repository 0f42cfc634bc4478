// Command function-calling runs an OpenAI-style function-calling loop over
// a Switchboard session's tools. The "model" is scripted so that the
// example runs without an LLM: it searches for an action matching -ask,
// runs the first one found with -input, and answers with the result. Put a
// real model behind the Model interface (OpenAI's Chat Completions take
// the same tools and messages) and the loop stays as it is.
//
//	SWITCHBOARD_API_KEY=sb_... go run ./examples/function-calling \
//	  -user ann -connector tasks -ask "create a task" -input '{"title":"Buy milk"}'
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

// Message is one chat message in the OpenAI Chat Completions shape.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Model answers a conversation: with tool calls, or with the final text.
type Model interface {
	Next(ctx context.Context, messages []Message, tools []switchboard.OpenAIFunction) (Message, error)
}

func main() {
	user := flag.String("user", "default", "the end user the session acts for")
	connector := flag.String("connector", "tasks", "the connector the session may use")
	ask := flag.String("ask", "create a task", "what the user asks for")
	input := flag.String("input", `{"title":"Buy milk"}`, "the input the scripted model gives the action it finds")
	flag.Parse()
	sb := switchboard.New(mustEnv("SWITCHBOARD_API_KEY"), switchboard.WithBaseURL(envOr("SWITCHBOARD_URL", switchboard.DefaultBaseURL)))
	answer, err := run(context.Background(), sb, &scriptedModel{input: json.RawMessage(*input)}, *user, *connector, *ask)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", answer)
}

// run creates a session and loops: the model answers, each tool call it
// makes runs in the session, and its result goes back to the model, until
// the model answers with text.
func run(ctx context.Context, sb *switchboard.Client, model Model, user, connector, ask string) (string, error) {
	sess, err := sb.CreateSession(ctx, switchboard.SessionRequest{UserID: user, Connectors: []string{connector}, TTLMinutes: 10})
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	listed, err := sb.ListSessionTools(ctx, sess.ID, switchboard.FormatOpenAIStrict)
	if err != nil {
		return "", fmt.Errorf("list tools: %w", err)
	}
	tools := switchboard.OpenAITools(listed.Tools)
	messages := []Message{{Role: "user", Content: ask}}
	for turn := 0; turn < 8; turn++ {
		reply, err := model.Next(ctx, messages, tools)
		if err != nil {
			return "", err
		}
		messages = append(messages, reply)
		if len(reply.ToolCalls) == 0 {
			return reply.Content, nil
		}
		for _, call := range reply.ToolCalls {
			fmt.Printf("model calls %s %s\n", call.Function.Name, call.Function.Arguments)
			out, err := sb.CallSessionTool(ctx, sess.ID, call.Function.Name, json.RawMessage(call.Function.Arguments))
			if err != nil {
				return "", fmt.Errorf("call %s: %w", call.Function.Name, err)
			}
			fmt.Printf("tool answers %s\n", clip(out.ForModel(), 200))
			messages = append(messages, Message{Role: "tool", ToolCallID: call.ID, Content: out.ForModel()})
		}
	}
	return "", errors.New("the model did not finish in 8 turns")
}

// scriptedModel stands in for an LLM: search, execute the first match,
// answer.
type scriptedModel struct{ input json.RawMessage }

func (m *scriptedModel) Next(_ context.Context, messages []Message, _ []switchboard.OpenAIFunction) (Message, error) {
	last := messages[len(messages)-1]
	switch {
	case last.Role == "user":
		args, _ := json.Marshal(map[string]any{"queries": []string{last.Content}})
		return call("switchboard_search_actions", args), nil
	case last.Role == "tool" && strings.Contains(last.Content, `"results"`):
		var found struct {
			Results []struct {
				Actions []struct{ ID string } `json:"actions"`
			} `json:"results"`
		}
		if json.Unmarshal([]byte(last.Content), &found) != nil || len(found.Results) == 0 || len(found.Results[0].Actions) == 0 {
			return Message{Role: "assistant", Content: "I found no action for that."}, nil
		}
		args, _ := json.Marshal(map[string]any{"action": found.Results[0].Actions[0].ID, "input": m.input})
		return call("switchboard_execute", args), nil
	default:
		var refusal struct {
			Error *switchboard.Refusal `json:"error"`
		}
		if json.Unmarshal([]byte(last.Content), &refusal) == nil && refusal.Error != nil {
			if refusal.Error.ConnectURL != "" {
				return Message{Role: "assistant", Content: "Please connect your account first: " + refusal.Error.ConnectURL}, nil
			}
			return Message{Role: "assistant", Content: "That did not work: " + refusal.Error.Message}, nil
		}
		return Message{Role: "assistant", Content: "Done: " + last.Content}, nil
	}
}

func call(name string, args []byte) Message {
	var c ToolCall
	c.ID, c.Type = "call_"+name, "function"
	c.Function.Name, c.Function.Arguments = name, string(args)
	return Message{Role: "assistant", ToolCalls: []ToolCall{c}}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func mustEnv(name string) string {
	v := os.Getenv(name)
	if v == "" {
		log.Fatalf("%s is not set", name)
	}
	return v
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
