// Package execute runs tools: it checks the input against the tool's
// schema, picks the account, builds the provider request from the tool's
// definition, injects the credential (refreshing OAuth tokens, at most one
// refresh per account at a time across replicas), sends it through the
// guarded client, and maps the answer and its errors. It also runs the raw
// proxy.
package execute

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"golang.org/x/sync/singleflight"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Options configure an Executor.
type Options struct {
	Store    *store.Store
	Accounts *account.Service
	// Guard holds the guarded outbound clients: a connector's calls go
	// through its scope (netguard).
	Guard *netguard.Guard
	// Keyring opens the sealed static headers of a project's MCP servers.
	Keyring *secret.Keyring
	// Policies decides calls by the project's policy rules; nil runs every
	// call (tests that do not need policies).
	Policies *policy.Service
	// Quotas admits or refuses each call that is about to reach a provider
	// by the project's quotas; nil admits every call.
	Quotas *quota.Service
	Logger *slog.Logger
	Now    func() time.Time
	// Metrics and Tracer record calls, provider latency and token
	// refreshes; nil turns each off.
	Metrics *telemetry.Metrics
	Tracer  *telemetry.Tracer
}

// Executor runs tools and proxy calls. It is safe for concurrent use.
type Executor struct {
	store    *store.Store
	accounts *account.Service
	guard    *netguard.Guard
	keyring  *secret.Keyring
	policies *policy.Service
	quotas   *quota.Service
	log      *slog.Logger
	now      func() time.Time
	metrics  *telemetry.Metrics
	tracer   *telemetry.Tracer
	// owner names this process in refresh leases.
	owner    string
	refresh  singleflight.Group
	tokens   tokenCache
	fresh    freshCredentials
	granted  grantedScopes
	used     *usage
	handlers map[string]Handler
	mcp      mcpSessions
	// client, in tests, replaces the guard's clients for every call.
	client *http.Client
	// beforeLease, in tests, runs between reading an account that needs a
	// refresh and taking its refresh lease (where another replica's refresh
	// may land).
	beforeLease func()
}

// New returns an Executor.
func New(o Options) *Executor {
	var b [8]byte
	_, _ = rand.Read(b[:])
	e := &Executor{
		store: o.Store, accounts: o.Accounts, guard: o.Guard, keyring: o.Keyring, policies: o.Policies, quotas: o.Quotas, log: o.Logger, now: o.Now,
		metrics: o.Metrics, tracer: o.Tracer,
		owner: hex.EncodeToString(b[:]), handlers: builtinHandlers(),
		tokens: newTokenCache(), fresh: newFreshCredentials(), granted: newGrantedScopes(),
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.used = newUsage(o.Store, e.log)
	return e
}

// clientFor returns the client of a connector's provider calls, in the
// connector's outbound scope; a plain-http request gets the scope narrowed
// to the networks the operator opened to the connector.
func (e *Executor) clientFor(connectorID string, plainHTTP bool) *http.Client {
	if e.client != nil {
		return e.client
	}
	if plainHTTP {
		return e.guard.Connector(connectorID).PlainHTTP().Client()
	}
	return e.guard.Connector(connectorID).Client()
}

// Call is one tool execution, in the project of the tenant it is run with.
type Call struct {
	ToolID       string
	Input        json.RawMessage
	UserID       string
	ConnectionID string
	AllowGlobal  bool
	// Preferred is a session's accounts entry for the tool's connector.
	Preferred string
	// Decoded, when set, is the input already decoded by the caller (a
	// session call, which normalizes it), numbers as json.Number; it is
	// validated as it is and Input is not read.
	Decoded map[string]any
	// Policy is where the call came from, for the policy decision.
	Policy PolicyContext
}

// Execute runs one tool for one user of t's project and returns the
// provider's answer (the part the tool's definition selects). The tool
// comes from t's catalog.
func (e *Executor) Execute(ctx context.Context, t tenant.Tenant, c Call) (any, error) {
	return e.ExecuteLogged(ctx, t, c, nil)
}

// ExecuteLogged is Execute that fills the call's execution log entry rec
// (when not nil) with the connector, tool, account and the provider's
// status and time; the caller sets the outcome and adds it to the log.
// rec is a parameter of its own, not a field of Call, so that the caller's
// entry can stay on its stack: Call's strings leak to the heap.
func (e *Executor) ExecuteLogged(ctx context.Context, t tenant.Tenant, c Call, rec *execlog.Entry) (any, error) {
	if err := t.Check(); err != nil {
		e.metrics.ToolCall(nil, err)
		return nil, err
	}
	tool, ok := t.Catalog.Tool(c.ToolID)
	if !ok {
		err := apierr.New(apierr.ToolNotFound, "no tool %q; GET /v1/tools lists them", c.ToolID)
		e.metrics.ToolCall(nil, err)
		return nil, err
	}
	res, err := e.execute(ctx, t, c, tool, rec)
	e.metrics.ToolCall(tool, err)
	return res, err
}

// execute runs a tool of t's catalog, filling rec when it is not nil.
func (e *Executor) execute(ctx context.Context, t tenant.Tenant, c Call, tool *catalog.Tool, rec *execlog.Entry) (any, error) {
	con := tool.Connector()
	if rec != nil {
		rec.Tool, rec.ConnectorID = tool.ID, con.ID
	}
	disabled, err := e.store.ToolDisabled(ctx, t.ProjectID, t.ToolsVersion, tool.ID)
	if err != nil {
		return nil, err
	}
	if disabled {
		return nil, apierr.New(apierr.ToolNotFound, "no tool %q in this project", c.ToolID)
	}
	input := c.Decoded
	if input == nil {
		input, err = DecodeInput(tool, c.Input)
	} else {
		err = validateInput(tool, input)
	}
	if err != nil {
		return nil, err
	}
	if con.MCP() {
		return e.callMCP(ctx, t, c, tool, input, rec)
	}
	conn, cred, base, err := e.account(ctx, t, con, account.Use{
		UserID: c.UserID, ConnectorID: con.ID, ConnectionID: c.ConnectionID,
		Preferred: c.Preferred, AllowGlobal: c.AllowGlobal, ToolID: tool.ID,
	})
	if err != nil {
		return nil, err
	}
	noteAccount(rec, conn.ID, cred)
	if err := e.enforce(ctx, t, c.Policy, c.UserID, toolSubject(tool, conn, input), rec); err != nil {
		return nil, err
	}
	if err := checkScopes(tool, conn, cred); err != nil {
		return nil, err
	}
	if err := checkMethodTool(tool, con, conn, cred); err != nil {
		return nil, err
	}
	if input, err = withPathFields(con, tool, input, cred.Connection); err != nil {
		return nil, err
	}
	var out *outgoing
	if tool.Handler != "" {
		h, ok := e.handlers[tool.Handler]
		if !ok {
			return nil, fmt.Errorf("execute: tool %s names handler %s, which is not registered", tool.ID, tool.Handler)
		}
		out, err = h(tool, input, base)
	} else {
		out, err = buildRequest(tool, input, base)
	}
	if err != nil {
		return nil, err
	}
	out.keepSecrets = rec != nil && rec.Payloads
	// The quota counts the calls that reach the provider: one refused
	// before (bad input, no account) costs nothing.
	if err := e.quotas.Admit(ctx, t, quota.Call{UserID: c.UserID, ConnectorID: con.ID, ToolID: tool.ID}); err != nil {
		return nil, err
	}
	resp, err := e.send(ctx, out, conn, cred, con)
	noteProvider(rec, out)
	if err != nil {
		return nil, err
	}
	e.used.touch(conn.ID, e.now())
	return toolResult(tool, resp)
}

// DecodeInput parses a tool input and checks it against the tool's input
// schema, reporting every problem with its path under "input". A missing
// or null input is {}.
func DecodeInput(tool *catalog.Tool, raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	input, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidType, Path: []any{"input"}, Message: "must be an object"})
	}
	if err := validateInput(tool, input); err != nil {
		return nil, err
	}
	return input, nil
}

// validateInput checks a decoded input against the tool's input schema.
func validateInput(tool *catalog.Tool, input map[string]any) error {
	if err := tool.ValidateInput(input); err != nil {
		return apierr.Validation(SchemaIssues(err, "input")...)
	}
	return nil
}

// SchemaIssues turns a JSON Schema validation error into one issue per
// failed leaf, with paths below prefix.
func SchemaIssues(err error, prefix ...any) []apierr.Issue {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []apierr.Issue{{Code: apierr.IssueInvalidValue, Path: prefix, Message: err.Error()}}
	}
	var out []apierr.Issue
	var walk func(*jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) > 0 {
			for _, c := range v.Causes {
				walk(c)
			}
			return
		}
		path := append([]any{}, prefix...)
		for _, p := range v.InstanceLocation {
			path = append(path, p)
		}
		out = append(out, apierr.Issue{Code: apierr.IssueInvalidValue, Path: path, Message: v.ErrorKind.LocalizedString(englishPrinter)})
	}
	walk(ve)
	if len(out) == 0 {
		out = append(out, apierr.Issue{Code: apierr.IssueInvalidValue, Path: prefix, Message: ve.Error()})
	}
	return out
}

// Close flushes what the executor holds in memory (last-used times) and
// ends the client sessions it keeps open to project MCP servers.
func (e *Executor) Close(ctx context.Context) {
	e.used.flush(ctx)
	e.mcp.close()
}

// Run flushes last-used times and closes idle MCP client sessions every
// interval until ctx ends, then closes the executor.
func (e *Executor) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			e.Close(context.WithoutCancel(ctx))
			return
		case <-t.C:
			e.used.flush(ctx)
			go closeAll(e.mcp.sweep(e.now()))
		}
	}
}

// account resolves the account a request runs with, opens its credential
// and fills the connector's base URL from the account's fields.
func (e *Executor) account(ctx context.Context, t tenant.Tenant, con *catalog.Connector, u account.Use) (store.Connection, account.Credential, *url.URL, error) {
	rctx, span := e.tracer.Start(ctx, "account.resolve")
	conn, err := e.accounts.Resolve(rctx, t, u)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("switchboard.connector", telemetry.ConnectorLabel(con)))
		if err != nil {
			span.SetStatus(codes.Error, telemetry.Outcome(err))
		}
	}
	span.End()
	if err != nil {
		return conn, account.Credential{}, nil, err
	}
	return e.open(ctx, conn, con)
}

// open opens an account's credential and fills the connector's base URL.
func (e *Executor) open(ctx context.Context, conn store.Connection, con *catalog.Connector) (store.Connection, account.Credential, *url.URL, error) {
	cred, err := e.accounts.Open(conn)
	if err != nil {
		return conn, cred, nil, err
	}
	fieldDefaults(con, &cred)
	m := method(con, cred)
	switch {
	case m == nil:
	case cred.Type == catalog.AuthOAuth2:
		// An expired token is refreshed before the request is built: the
		// refresh answer may move the account's host (Pipedrive's
		// api_domain), and the request must go where it now says.
		cred = e.fresh.newer(conn, cred)
		if needsRefresh(cred, e.now()) {
			if cred, err = e.refreshToken(ctx, conn, cred, con, m, false); err != nil {
				return conn, cred, nil, err
			}
		}
	case cred.Type == catalog.AuthServiceAccount:
		// The token is needed for the call anyway; getting it now records
		// the scopes it grants before the scope check.
		if _, err := e.grantToken(ctx, conn, cred, m); err != nil {
			return conn, cred, nil, err
		}
	}
	// A refresh, a client credentials or a service account token may have
	// narrowed the granted scopes without touching the resolution cache.
	switch cred.Type {
	case catalog.AuthOAuth2, catalog.AuthOAuth2ClientCredentials, catalog.AuthServiceAccount:
		conn.Scopes = e.granted.of(conn)
	}
	// An auth method may serve its accounts on a base URL of its own
	// (Atlassian OAuth apps call api.atlassian.com with a cloud id).
	tmpl := con.API.BaseURL
	if m != nil {
		tmpl = con.BaseURLFor(m.ID)
		if cred, err = e.fieldsFromGrant(ctx, conn, cred, con, m); err != nil {
			return conn, cred, nil, err
		}
	}
	base, err := baseURL(con.ID, tmpl, urlFields(m, cred))
	return conn, cred, base, err
}

// noteAccount records the account a call runs with in its log entry, and,
// when the entry keeps payloads, the credential's values, which its stored
// payloads must never show.
func noteAccount(rec *execlog.Entry, connectionID string, cred account.Credential) {
	if rec == nil {
		return
	}
	rec.ConnectionID = connectionID
	if rec.Payloads {
		rec.AddSecrets(cred.Secrets()...)
	}
}

// noteProvider copies what the provider requests of out took and answered
// into the call's log entry.
func noteProvider(rec *execlog.Entry, out *outgoing) {
	if rec == nil {
		return
	}
	rec.ProviderCall(out.status, out.took)
	if len(out.secrets) > 0 {
		rec.AddSecrets(out.secrets...)
	}
}
