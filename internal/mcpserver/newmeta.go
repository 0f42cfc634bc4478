package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// versionPerRequestMeta is the protocol version from which every request
// carries the client's protocol version, capabilities and identity in
// params._meta, and names its method and tool in headers (SEP-2575 and
// SEP-2243); the go-sdk client (v1.8.0) asks for it first.
const versionPerRequestMeta = "2026-07-28"

// The _meta members of a 2026-07-28 request (mcp.MetaKey…).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// clientCapabilities is the shape the go-sdk reads the capabilities _meta
// member into (its clientCapabilitiesV2).
type clientCapabilities struct {
	mcp.ClientCapabilities
	// Roots is the SDK's RootCapabilities (deprecated since 2026-07-28,
	// still read), spelled out.
	Roots *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"roots,omitempty"`
}

// Member names the go-sdk knows in the capabilities and client info.
var (
	capabilityNames = jsonNames(reflect.TypeFor[clientCapabilities]())
	clientInfoNames = jsonNames(reflect.TypeFor[mcp.Implementation]())
)

// plainNewCall reports whether a 2026-07-28 tools/call is one the go-sdk
// would hand to our tool handler unchanged: Mcp-Method and Mcp-Name
// headers that match the body, and a _meta with only the protocol version
// (equal to the header's), the client's capabilities and optionally its
// identity, each of the shape the go-sdk reads, with no member it does not
// know. Anything else (a missing or mismatched header, a log level, a
// malformed capability) is left to the go-sdk, whose answer is the
// reference.
func plainNewCall(h http.Header, name string, rawMeta json.RawMessage) bool {
	if !single(h, "Mcp-Method", "tools/call") || !single(h, "Mcp-Name", name) {
		return false
	}
	var meta map[string]json.RawMessage
	if len(rawMeta) == 0 || rawMeta[0] != '{' || json.Unmarshal(rawMeta, &meta) != nil {
		return false
	}
	for k := range meta {
		switch k {
		case metaProtocolVersion, metaClientCapabilities, metaClientInfo:
		default:
			return false
		}
	}
	var version string
	if v := meta[metaProtocolVersion]; len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &version) != nil || version != versionPerRequestMeta {
		return false
	}
	var caps clientCapabilities
	if !knownObject(meta[metaClientCapabilities], capabilityNames, &caps) {
		return false
	}
	if caps.Elicitation != nil {
		// A client that can answer an elicitation may be asked to approve
		// a held call in place, which only the go-sdk's path can do.
		return false
	}
	if info, ok := meta[metaClientInfo]; ok {
		var impl mcp.Implementation
		if !knownObject(info, clientInfoNames, &impl) {
			return false
		}
	}
	return true
}

// single reports whether h has exactly one value for name, equal to want.
func single(h http.Header, name, want string) bool {
	v := h.Values(name)
	return len(v) == 1 && v[0] == want
}

// knownObject reports whether raw is a JSON object whose members all have
// one of names, exactly, and which decodes into v.
func knownObject(raw json.RawMessage, names map[string]bool, v any) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return false
	}
	for k := range members {
		if !names[k] {
			return false
		}
	}
	return json.Unmarshal(raw, v) == nil
}

// jsonNames lists the JSON member names of a struct type, through
// embedded structs.
func jsonNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for f := range t.Fields() {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k := range jsonNames(f.Type) {
				out[k] = true
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		if f.IsExported() {
			out[name] = true
		}
	}
	return out
}

// serverInfoMeta is the _meta member (with its trailing comma) that the
// SDK puts first in a 2026-07-28 result: this server's name and version.
var serverInfoMeta = func() []byte {
	b, err := json.Marshal(map[string]any{"io.modelcontextprotocol/serverInfo": implementation})
	if err != nil {
		panic(err)
	}
	return append(append([]byte(`"_meta":`), b...), ',')
}()
