package execute

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// ProxyCall is one raw request to a connector's API (POST /v1/tools/proxy),
// in the project of the tenant it is sent with.
type ProxyCall struct {
	ConnectorID  string
	UserID       string
	Endpoint     string
	Method       string
	Query        map[string]any
	Body         json.RawMessage
	Headers      map[string]string
	ConnectionID string
	AllowGlobal  bool
	Preferred    string
	// Policy is where the call came from, for the policy decision.
	Policy PolicyContext
}

// ProxyMethods are the methods the raw proxy sends.
var ProxyMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// droppedHeaders never pass through the proxy: the credential is ours to set.
var droppedHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true, "host": true}

// Proxy sends a raw request to the connector's API host with the user's
// credential and returns the provider's body: JSON as JSON, text as text,
// anything else as base64 with its content type.
func (e *Executor) Proxy(ctx context.Context, t tenant.Tenant, c ProxyCall) (any, error) {
	return e.ProxyLogged(ctx, t, c, nil)
}

// ProxyLogged is Proxy that fills the call's execution log entry rec (when
// not nil), as ExecuteLogged does.
func (e *Executor) ProxyLogged(ctx context.Context, t tenant.Tenant, c ProxyCall, rec *execlog.Entry) (any, error) {
	con, res, err := e.proxy(ctx, t, c, rec)
	e.metrics.ProxyCall(con, err)
	return res, err
}

// proxy is ProxyLogged; it returns the connector the call named, nil when
// there is none (for the proxy metric).
func (e *Executor) proxy(ctx context.Context, t tenant.Tenant, c ProxyCall, rec *execlog.Entry) (*catalog.Connector, any, error) {
	if err := t.Check(); err != nil {
		return nil, nil, err
	}
	if !slices.Contains(ProxyMethods, c.Method) {
		return nil, nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"method"},
			Message: "must be one of GET, POST, PUT, PATCH, DELETE"})
	}
	con, ok := t.Catalog.Connector(c.ConnectorID)
	if !ok {
		return nil, nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"connectorId"},
			Message: "is not a connector; GET /v1/connectors lists them"})
	}
	res, err := e.proxyTo(ctx, t, con, c, rec)
	return con, res, err
}

// proxyTo sends a proxy call to con.
func (e *Executor) proxyTo(ctx context.Context, t tenant.Tenant, con *catalog.Connector, c ProxyCall, rec *execlog.Entry) (any, error) {
	if !con.API.Proxy {
		return nil, apierr.New(apierr.ForbiddenEndpoint, "%s does not accept raw proxy requests; use its tools", con.ID)
	}
	conn, cred, base, err := e.account(ctx, t, con, account.Use{
		UserID: c.UserID, ConnectorID: con.ID, ConnectionID: c.ConnectionID,
		Preferred: c.Preferred, AllowGlobal: c.AllowGlobal,
	})
	if err != nil {
		return nil, err
	}
	noteAccount(rec, conn.ID, cred)
	target, err := ProxyURL(base, c.Endpoint)
	if err != nil {
		return nil, err
	}
	if err := e.enforce(ctx, t, c.Policy, c.UserID, proxySubject(c, conn), rec); err != nil {
		return nil, err
	}
	q := target.Query()
	for k, v := range c.Query {
		addQuery(q, k, v)
	}
	target.RawQuery = q.Encode()
	out := newOutgoing(con, c.Method, target)
	out.keepSecrets = rec != nil && rec.Payloads
	for k, v := range c.Headers {
		if !droppedHeaders[strings.ToLower(k)] {
			out.Header.Set(k, v)
		}
	}
	if len(c.Body) > 0 && string(c.Body) != "null" {
		out.Body = c.Body
		if out.Header.Get("Content-Type") == "" {
			out.Header.Set("Content-Type", "application/json")
		}
	}
	// A redirect is followed only while it stays under the base URL, as the
	// endpoint itself must: the credential is on every same-origin hop.
	ctx = netguard.WithRedirectCheck(ctx, func(u *url.URL) error {
		if !underBase(base, u) {
			return errRedirectOffBase
		}
		return nil
	})
	if err := e.quotas.Admit(ctx, t, quota.Call{UserID: c.UserID, ConnectorID: con.ID}); err != nil {
		return nil, err
	}
	resp, err := e.send(ctx, out, conn, cred, con)
	noteProvider(rec, out)
	if err != nil {
		if ae, ok := apierr.As(err); ok && ae.Code == apierr.ExecutionError && ae.Upstream != nil {
			// Through the proxy every provider failure is UPSTREAM_ERROR (docs/execution.md).
			ae.Code = apierr.UpstreamError
		}
		return nil, err
	}
	e.used.touch(conn.ID, e.now())
	if len(con.API.Omit) > 0 && len(resp.Body) > 0 {
		v, ok := omitFields(con, resp.Body)
		if !ok {
			return nil, apierr.New(apierr.UpstreamError, "%s answered with %s, which the proxy does not pass on for this connector: "+
				"its answers may carry credentials that only JSON answers can be cleared of; ask for JSON", con.ID, cmp.Or(resp.ContentType, "an unreadable body"))
		}
		return v, nil
	}
	return proxyBody(resp), nil
}

// ProxyURL resolves endpoint against the connector's base URL and refuses,
// with 403 FORBIDDEN_ENDPOINT, anything that could leave the base: absolute
// or scheme-relative URLs, userinfo, other ports, backslashes, control
// characters, encoded slashes, backslashes or dots, and dot segments.
func ProxyURL(base *url.URL, endpoint string) (*url.URL, error) {
	forbidden := apierr.New(apierr.ForbiddenEndpoint, "endpoint must be a path under the connector's API base URL %s", base.String())
	if endpoint == "" || len(endpoint) > 2048 {
		return nil, forbidden
	}
	lower := strings.ToLower(endpoint)
	if strings.Contains(lower, "://") || strings.HasPrefix(endpoint, "//") || strings.ContainsAny(endpoint, "\\#") ||
		strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%2e") ||
		strings.Contains(lower, "%00") || strings.Contains(lower, "%25") {
		return nil, forbidden
	}
	for _, r := range endpoint {
		if r < 0x20 || r == 0x7f || r == ' ' {
			return nil, forbidden
		}
	}
	path, rawQuery, _ := strings.Cut(endpoint, "?")
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	for _, seg := range strings.Split(path, "/") {
		if !plainSegment(seg) {
			return nil, forbidden
		}
	}
	// A first segment with ':' or '@' reads as a scheme, a port or userinfo.
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if strings.ContainsAny(first, ":@") {
		return nil, forbidden
	}
	rel, err := url.Parse(path)
	if err != nil || rel.Scheme != "" || rel.Host != "" || rel.User != nil {
		return nil, forbidden
	}
	u := *base
	u.Path = strings.TrimRight(base.Path, "/") + rel.Path
	u.RawPath = ""
	u.RawQuery = rawQuery
	if _, err := url.ParseQuery(rawQuery); err != nil {
		return nil, forbidden
	}
	// Belt and braces: the result must still be on the base's scheme, host
	// and port, under its path.
	if !underBase(base, &u) {
		return nil, forbidden
	}
	return &u, nil
}

// errRedirectOffBase stops a proxy request the provider redirected outside
// the connector's API base URL.
var errRedirectOffBase = errors.New("redirect outside the API base URL")

// underBase reports whether u is on base's scheme, host and port, under
// its path.
func underBase(base, u *url.URL) bool {
	return u.Scheme == base.Scheme && strings.EqualFold(u.Host, base.Host) && u.User == nil &&
		strings.HasPrefix(u.Path, strings.TrimRight(base.Path, "/")+"/")
}

// proxyBody returns a provider body as the proxy answers it.
func proxyBody(r *response) any {
	if len(r.Body) == 0 {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(r.ContentType)
	// JSON passes through as it is: validated, never decoded and re-encoded.
	if (mt == "" || strings.Contains(mt, "json")) && json.Valid(r.Body) {
		return json.RawMessage(r.Body)
	}
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+xml") || mt == "application/xml" || mt == "application/x-www-form-urlencoded" {
		return string(r.Body)
	}
	return map[string]string{"contentType": r.ContentType, "base64": base64.StdEncoding.EncodeToString(r.Body)}
}

// CallAPI sends one request to the API of a connection's connector with its
// credential, for Switchboard's own use (registering a provider webhook).
// The connector comes from t's catalog. body is sent as JSON, or as a form
// when form is true.
func (e *Executor) CallAPI(ctx context.Context, t tenant.Tenant, connectionID, method, path string, body any, form bool) (any, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	conn, err := e.store.GetConnection(ctx, t.ProjectID, connectionID)
	if err != nil {
		return nil, err
	}
	con, ok := t.Catalog.Connector(conn.ConnectorID)
	if !ok {
		return nil, apierr.New(apierr.ConnectorUnavailable, "connector %s is not available", conn.ConnectorID)
	}
	conn, cred, base, err := e.open(ctx, conn, con)
	if err != nil {
		return nil, err
	}
	target, err := ProxyURL(base, path)
	if err != nil {
		return nil, err
	}
	out := newOutgoing(con, method, target)
	out.Header.Set("Accept", "application/json")
	if body != nil {
		if form {
			values := url.Values{}
			flattenForm(values, "", body)
			out.Body = []byte(values.Encode())
			out.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			b, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			out.Body = b
			out.Header.Set("Content-Type", "application/json")
		}
	}
	resp, err := e.send(ctx, out, conn, cred, con)
	if err != nil {
		return nil, err
	}
	return decodeBody(resp), nil
}
