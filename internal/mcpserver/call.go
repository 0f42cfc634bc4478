package mcpserver

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeInvalidParams is JSON-RPC 2.0's error code for invalid method
// parameters; the go-sdk answers a call of an unknown tool with it.
const codeInvalidParams = -32602

// SetDirectCalls turns the direct tools/call path (serveCall) on or off;
// New turns it on. The tests and benchmarks that compare it with the
// go-sdk's answers turn it off.
func (s *Server) SetDirectCalls(on bool) { s.sdkCalls.Store(!on) }

// DirectCalls is the number of tools/call requests answered without the
// go-sdk since New, for the tests and benchmarks that check which path a
// request took.
func (s *Server) DirectCalls() int64 { return s.directCalls.Load() }

// serveCall answers a tools/call without the go-sdk, and reports whether
// it did. The SDK decodes a request about ten times (each decode with a
// fresh 32 KB buffer) and encodes the result twice; here the request is
// decoded once, the session service runs the tool, and its outcome is
// encoded once (see run, which the SDK path shares, so both give the same
// result bytes). Only a request the SDK would hand to our tool handler as
// it is comes here: a protocol version up to 2025-11-25, or 2026-07-28 with
// the headers and per-request _meta that version requires in their plain
// form (newMeta), a JSON object with jsonrpc, an integer or string id,
// method and params, and params with only a string name and arguments
// (and that _meta; no progress token or multi-round-trip fields).
// Anything else, including every malformed request, gets the SDK's own
// answer. An unknown tool and an error of the
// call are JSON-RPC errors, as the SDK writes them (docs/mcp.md).
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, t target, id json.RawMessage, body []byte) bool {
	version := r.Header.Get("Mcp-Protocol-Version")
	if s.sdkCalls.Load() || !(legacyVersions[version] || version == versionPerRequestMeta) ||
		len(r.Header.Values("Last-Event-ID")) > 0 || !plainID(id) || !jsonContent(r.Header.Get("Content-Type")) ||
		!acceptsBoth(r.Header.Values("Accept")) {
		return false
	}
	name, args, meta, ok := callParams(body)
	if !ok {
		return false
	}
	if version == versionPerRequestMeta {
		if !plainNewCall(r.Header, name, meta) {
			return false
		}
	} else if meta != nil {
		return false
	}
	c := s.cachedFor(r.Context(), t)
	if c == nil {
		return false
	}
	if !c.tools[name] && version == versionPerRequestMeta {
		// Under 2026-07-28 an unknown tool is an HTTP 400 as well, with
		// the headers of the SDK's protocol-level errors: its answer.
		return false
	}
	s.directCalls.Add(1)
	if !c.tools[name] {
		writeError(w, id, codeInvalidParams, fmt.Sprintf("unknown tool %q", name))
		return true
	}
	out, extra, refusal, err := s.run(r.Context(), t, name, args)
	isError := refusal != nil
	if err == nil && len(extra) > 0 {
		// Content blocks other than text are rare (upstream MCP images and
		// the like): the SDK encodes them, as it would on its own path.
		var blocks []byte
		if blocks, err = encodeBlocks(extra); err == nil {
			writeCallResultWith(w, id, out, blocks, isError, version == versionPerRequestMeta)
			return true
		}
	}
	if err != nil {
		// The SDK answers a tool handler's plain error with code 0.
		writeError(w, id, 0, err.Error())
		return true
	}
	writeCallResultWith(w, id, out, nil, isError, version == versionPerRequestMeta)
	return true
}

// callParams reads the name, arguments and _meta of a tools/call body, and
// reports whether the body has exactly the members the direct path
// answers. Member names are matched exactly, as the SDK's decoder does.
func callParams(body []byte) (name string, args, meta json.RawMessage, ok bool) {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil {
		return "", nil, nil, false
	}
	for k := range env {
		switch k {
		case "jsonrpc", "id", "method", "params":
		default:
			return "", nil, nil, false
		}
	}
	var params map[string]json.RawMessage
	if p := env["params"]; len(p) == 0 || p[0] != '{' || json.Unmarshal(p, &params) != nil {
		return "", nil, nil, false
	}
	for k := range params {
		if k != "name" && k != "arguments" && k != "_meta" {
			return "", nil, nil, false
		}
	}
	raw := params["name"]
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &name) != nil {
		return "", nil, nil, false
	}
	return name, params["arguments"], params["_meta"], true
}

// plainID reports whether a request id is one the SDK echoes unchanged: a
// string, or an integer a float64 holds exactly (the SDK reads numbers as
// float64 and writes them back as integers).
func plainID(id json.RawMessage) bool {
	if len(id) > 1 && id[0] == '"' {
		return true
	}
	digits := id
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return false
		}
	}
	return string(id) != "-0"
}

// jsonContent reports whether a Content-Type is application/json, as the
// SDK checks it.
func jsonContent(v string) bool {
	if v == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && mt == "application/json"
}

// acceptsBoth reports whether Accept values take both JSON and an event
// stream, by the SDK's rule (a missing one is its 400).
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for v != "" {
			var token string
			token, v, _ = strings.Cut(v, ",")
			base, _, _ := strings.Cut(token, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// encodeBlocks encodes content blocks as the members of a JSON array
// (without the brackets), each led by a comma, to follow the text block.
func encodeBlocks(blocks []mcp.Content) ([]byte, error) {
	var out []byte
	for _, c := range blocks {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		out = append(append(out, ','), b...)
	}
	return out, nil
}

// writeCallResultWith writes the JSON-RPC answer of a tools/call: the
// outcome as the text block and as structuredContent, then any more content
// blocks (encoded by encodeBlocks), as the SDK encodes a CallToolResult.
// Under 2026-07-28 the result also names the server in _meta and says it
// is complete (resultType), as the SDK adds.
func writeCallResultWith(w http.ResponseWriter, id json.RawMessage, outcome, blocks []byte, isError, perRequestMeta bool) {
	out := make([]byte, 0, 2*len(outcome)+len(blocks)+len(id)+112+len(serverInfoMeta))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":{`...)
	if perRequestMeta {
		out = append(out, serverInfoMeta...)
	}
	out = append(out, `"content":[{"type":"text","text":`...)
	out = appendString(out, outcome)
	out = append(out, '}')
	out = append(out, blocks...)
	out = append(out, `],"structuredContent":`...)
	out = append(out, outcome...)
	if isError {
		out = append(out, `,"isError":true`...)
	}
	if perRequestMeta {
		out = append(out, `,"resultType":"complete"`...)
	}
	out = append(out, "}}\n"...)
	writeJSONRPC(w, out)
}

// writeError writes a JSON-RPC error answer with the request's id.
func writeError(w http.ResponseWriter, id json.RawMessage, code int, message string) {
	out := make([]byte, 0, len(message)+len(id)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"error":{"code":`...)
	out = strconv.AppendInt(out, int64(code), 10)
	out = append(out, `,"message":`...)
	out = appendString(out, []byte(message))
	out = append(out, "}}\n"...)
	writeJSONRPC(w, out)
}

// writeJSONRPC writes an encoded JSON-RPC answer with HTTP 200 and the
// headers the SDK sets on a call's JSON answer.
func writeJSONRPC(w http.ResponseWriter, out []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// appendString appends s as a JSON string, as encoding/json writes a Go
// string without HTML escaping: invalid UTF-8 becomes U+FFFD, and U+2028
// and U+2029 are escaped.
func appendString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
