package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// codeMethodNotFound is JSON-RPC 2.0's error code for a method the server
// does not have.
const codeMethodNotFound = -32601

// sdkMethods are the methods the go-sdk (v1.8.0) server receives: its
// requests and client notifications. Our servers register no custom
// methods, so anything else is unknown to them. Keep in step with the
// SDK's serverMethodInfos when upgrading it.
var sdkMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "subscriptions/listen": true,
	"completion/complete": true, "logging/setLevel": true,
	"notifications/initialized": true, "notifications/cancelled": true,
	"notifications/progress": true, "notifications/roots/list_changed": true,
}

// writeMethodNotFound writes a JSON-RPC "method not found" error for a
// request, with the request's id. The go-sdk refuses such a request before
// its server sees it, with a plain-text 400 under the protocol versions up
// to 2025-11-25, which a JSON-RPC client cannot match to its call; under
// Streamable HTTP a request's answer is a JSON-RPC response (HTTP 200).
func writeMethodNotFound(w http.ResponseWriter, id json.RawMessage, method string) {
	msg, _ := json.Marshal("method not found: " + method)
	var out bytes.Buffer
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(`,"error":{"code":` + strconv.Itoa(codeMethodNotFound) + `,"message":`)
	out.Write(msg)
	out.WriteString("}}\n")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(out.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Bytes())
}
