package execute

import (
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

func TestCall_Check(t *testing.T) {
	t.Parallel()
	id := "01920000-0000-7000-8000-000000000001"
	for _, c := range []struct {
		call Call
		want string // issue paths, joined
	}{
		{Call{ToolID: "delta_get_task", UserID: "default"}, ""},
		{Call{ToolID: "delta_get_task", UserID: "u1", ConnectionID: id}, ""},
		{Call{UserID: "u1"}, "toolId"},
		{Call{ToolID: "t"}, "userId"},
		{Call{ToolID: "t", UserID: strings.Repeat("u", 257)}, "userId"},
		{Call{ToolID: "t", UserID: "u", ConnectionID: "not-a-uuid"}, "connectionId"},
		{Call{ConnectionID: "x"}, "toolId,userId,connectionId"},
	} {
		var is apierr.Issues
		c.call.Check(&is)
		if got := paths(is); got != c.want {
			t.Errorf("%+v: issues at %q, want %q", c.call, got, c.want)
		}
	}
}

func TestProxyCall_Check(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		call   ProxyCall
		want   string
		method string
	}{
		{ProxyCall{ConnectorID: "delta", UserID: "u1", Endpoint: "/x"}, "", "GET"},
		{ProxyCall{ConnectorID: "delta", UserID: "u1", Endpoint: "/x", Method: "DELETE"}, "", "DELETE"},
		{ProxyCall{ConnectorID: "delta", UserID: "u1", Endpoint: "/x", Method: "TRACE"}, "method", "TRACE"},
		{ProxyCall{ConnectorID: "delta", UserID: "u1", Endpoint: "/x", Method: "get"}, "method", "get"},
		{ProxyCall{}, "connectorId,userId,endpoint", "GET"},
		{ProxyCall{ConnectorID: "d", UserID: "u", Endpoint: "/x", ConnectionID: "nope"}, "connectionId", "GET"},
	} {
		var is apierr.Issues
		c.call.Check(&is)
		if got := paths(is); got != c.want || c.call.Method != c.method {
			t.Errorf("%+v: issues at %q, want %q (method %s)", c.call, got, c.want, c.method)
		}
	}
}

func paths(is apierr.Issues) string {
	var out []string
	for _, i := range is {
		for _, p := range i.Path {
			out = append(out, p.(string))
		}
	}
	return strings.Join(out, ",")
}
