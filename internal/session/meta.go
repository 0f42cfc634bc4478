package session

import "encoding/json"

// The meta tools (docs/sessions.md). Their descriptions teach a model
// the loop: search, connect when needed, execute.
const (
	MetaSearch     = "switchboard_search_actions"
	MetaExecute    = "switchboard_execute"
	MetaConnect    = "switchboard_connect_account"
	MetaList       = "switchboard_list_accounts"
	MetaDisconnect = "switchboard_disconnect_account"
	MetaProxy      = "switchboard_proxy"
)

// metaTool is one meta tool's definition.
type metaTool struct {
	name        string
	description string
	schema      json.RawMessage
	readOnly    bool
	destructive bool
	// openWorld: the tool can run actions whose effect reaches outside
	// the connected account (irreversible ones).
	openWorld bool
}

var metaSearch = metaTool{
	name: MetaSearch,
	description: "Find the actions (tools of connected applications such as GitHub, Slack, Gmail or Stripe) that can do what the user asked. " +
		"Give one or more short natural-language queries, one per distinct task. Each result lists the best matching actions with their id, " +
		"what they do, their input schema, whether the user's account for that application is connected, and a score from 0 to 1. " +
		"A query of several steps (\"find the customer and then refund\") also gets steps, each with its own actions, in order. " +
		"A result whose match is \"weak\" or \"none\" has no action that does what was asked: do not guess one. " +
		"Call this first, then run an action with " + MetaExecute + ".",
	schema: json.RawMessage(`{"type":"object","properties":{"queries":{"type":"array","minItems":1,"maxItems":10,` +
		`"items":{"type":"string","minLength":1,"maxLength":200},"description":"What to do, in plain words, one query per task (e.g. \"create a GitHub issue\")."}},` +
		`"required":["queries"],"additionalProperties":false}`),
	readOnly: true,
}

var metaExecute = metaTool{
	name: MetaExecute,
	description: "Run one action for the user, with input matching the action's input schema from " + MetaSearch + ". " +
		"If the answer says connection_required, show the user the connect link it carries and try again after they connect. " +
		"If it says invalid_arguments, fix the input as its issues describe.",
	schema: json.RawMessage(`{"type":"object","properties":{` +
		`"action":{"type":"string","description":"The action id from ` + MetaSearch + ` (e.g. github_create_issue)."},` +
		`"input":{"type":"object","description":"The action's input, as its input schema describes."},` +
		`"account":{"type":"string","description":"Which of the user's accounts to use (id, name or label), when they have several."}},` +
		`"required":["action","input"],"additionalProperties":false}`),
	destructive: true,
	openWorld:   true,
}

var metaConnect = metaTool{
	name: MetaConnect,
	description: "Get a link the user opens to connect their account of an application (or reconnect one that expired). " +
		"Show the link to the user; once they have connected, run the action again.",
	schema: json.RawMessage(`{"type":"object","properties":{"connector":{"type":"string","description":"The application's connector id (e.g. github, slack)."}},` +
		`"required":["connector"],"additionalProperties":false}`),
}

var metaList = metaTool{
	name:        MetaList,
	description: "List the user's connected accounts for the applications of this session, with their names, status and which one is the default.",
	schema: json.RawMessage(`{"type":"object","properties":{"connector":{"type":"string","description":"Only this application's accounts."}},` +
		`"additionalProperties":false}`),
	readOnly: true,
}

var metaDisconnect = metaTool{
	name:        MetaDisconnect,
	description: "Disconnect one of the user's accounts and delete its stored credential. Only do this when the user asks for it.",
	schema: json.RawMessage(`{"type":"object","properties":{"connector":{"type":"string","description":"The application's connector id."},` +
		`"account":{"type":"string","description":"The account's id, name or label."}},"required":["connector","account"],"additionalProperties":false}`),
	destructive: true,
}

var metaProxy = proxyTool([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, "HTTP method (default GET).")

// metaProxyReadOnly is the proxy of a read-only session: GET only.
var metaProxyReadOnly = proxyTool([]string{"GET"}, "HTTP method: this session is read-only, so only GET.")

func proxyTool(methods []string, methodHelp string) metaTool {
	enum, _ := json.Marshal(methods)
	return metaTool{
		name: MetaProxy,
		description: "Send a raw HTTP request to an application's API with the user's credential, for what no action covers. " +
			"The endpoint is a path relative to the application's API base URL.",
		schema: json.RawMessage(`{"type":"object","properties":{"connector":{"type":"string","description":"The application's connector id."},` +
			`"endpoint":{"type":"string","description":"Path relative to the API base URL, e.g. /repos/octo/hello/labels."},` +
			`"method":{"type":"string","enum":` + string(enum) + `,"description":"` + methodHelp + `"},` +
			`"query":{"type":"object","description":"Query parameters."},"body":{"description":"JSON request body."},` +
			`"account":{"type":"string","description":"Which of the user's accounts to use."}},"required":["connector","endpoint"],"additionalProperties":false}`),
		readOnly:    len(methods) == 1,
		destructive: len(methods) > 1,
		openWorld:   len(methods) > 1,
	}
}

// metaTools returns the meta tools a policy allows, in listing order.
func metaTools(p Policy) []metaTool {
	out := []metaTool{metaSearch, metaExecute, metaConnect, metaList}
	if p.AllowDisconnect {
		out = append(out, metaDisconnect)
	}
	switch {
	case p.AllowProxy && p.ReadOnly:
		out = append(out, metaProxyReadOnly)
	case p.AllowProxy:
		out = append(out, metaProxy)
	}
	return out
}
