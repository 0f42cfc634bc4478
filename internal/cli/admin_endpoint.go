package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// endpointFlags are the flags of endpoint create and update.
type endpointFlags struct {
	projectID, slug, connectors, actions, mode, maxClass *string
	readOnly, requireUser, allowGlobal                   *bool
	// auth and the handoff flags set the endpoint's sign-in
	// (docs/mcp-oauth.md); on update, without --auth the old one stays.
	auth, handoffURL, handoffIssuer, handoffJWKS, handoffSecret *string
	oidcIssuer, oidcClientID, oidcClientSecret, oidcUserClaim   *string
}

func bindEndpointFlags(fs *flag.FlagSet) endpointFlags {
	return endpointFlags{
		projectID:        fs.String("project", "", "project id (create only)"),
		slug:             fs.String("slug", "", "URL slug: 3 to 64 lowercase letters, digits and hyphens, unique in the installation"),
		connectors:       fs.String("connectors", "", "comma-separated connector ids (default: all)"),
		actions:          fs.String("actions", "", "comma-separated tool ids or prefix* patterns (default: all)"),
		mode:             fs.String("mode", "tools", "tools (every tool in scope) or meta (the meta tools)"),
		maxClass:         fs.String("max-data-class", "", "standard, pii or phi (default phi)"),
		readOnly:         fs.Bool("read-only", false, "only read tools"),
		requireUser:      fs.Bool("require-user", false, "refuse calls without a user in the path"),
		allowGlobal:      fs.Bool("allow-global-accounts", false, "let calls use the project's global accounts"),
		auth:             fs.String("auth", "", "api_key (default: the project's API key only) or oauth (also OAuth sign-in of MCP clients)"),
		handoffURL:       fs.String("handoff-url", "", "oauth: the project's page that signs the user in and sends the browser back with an assertion"),
		handoffIssuer:    fs.String("handoff-issuer", "", "oauth: the iss of the project's assertions"),
		handoffJWKS:      fs.String("handoff-jwks-url", "", "oauth: JWKS URL of the project's RS256/ES256 assertion keys"),
		handoffSecret:    fs.String("handoff-secret", "", `oauth: HS256 shared secret of the assertions (32 bytes or more), or "-" to read it from standard input`),
		oidcIssuer:       fs.String("oidc-issuer", "", "oauth: sign users in with this OpenID Connect provider instead of a handoff"),
		oidcClientID:     fs.String("oidc-client-id", "", "oauth: Switchboard's client id at the OpenID Connect provider"),
		oidcClientSecret: fs.String("oidc-client-secret", "", `oauth: that client's secret (none for a public client), or "-" to read it from standard input`),
		oidcUserClaim:    fs.String("oidc-user-claim", "", "oauth: the ID token claim that becomes the userId (default sub)"),
	}
}

func splitCSV(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (f endpointFlags) request(projectID string) session.EndpointRequest {
	return session.EndpointRequest{ProjectID: projectID, Slug: *f.slug, Connectors: splitCSV(*f.connectors), Actions: splitCSV(*f.actions),
		Mode: *f.mode, ReadOnly: *f.readOnly, MaxDataClass: *f.maxClass, RequireUser: *f.requireUser, AllowGlobalAccounts: *f.allowGlobal}
}

type endpointView struct {
	ID          string          `json:"id"`
	ProjectID   string          `json:"projectId"`
	Slug        string          `json:"slug"`
	Mode        string          `json:"mode"`
	RequireUser bool            `json:"requireUser"`
	Auth        string          `json:"auth"`
	SignIn      json.RawMessage `json:"signIn,omitempty"`
	Spec        json.RawMessage `json:"scope"`
	MCPPath     string          `json:"mcpPath"`
}

func viewEndpoint(e store.Endpoint) endpointView {
	return endpointView{ID: e.ID, ProjectID: e.ProjectID, Slug: e.Slug, Mode: e.Mode, RequireUser: e.RequireUser, Spec: e.Spec, Auth: e.Auth, SignIn: e.AuthConfig,
		MCPPath: "/" + e.Slug + "/<userId>"}
}

// adminEndpoint runs `admin endpoint create|list|update|delete`.
func (p *Program) adminEndpoint(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("endpoint " + verb)
	ef := bindEndpointFlags(a.fs)
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	sessions := session.NewService(session.Options{Store: st})
	switch verb {
	case "create", "update":
		if len(pos) > 0 || *ef.slug == "" || (verb == "create" && *ef.projectID == "") {
			return usagef("usage: switchboard admin endpoint %s --project ID --slug SLUG [--connectors …] [--actions …] [--mode tools|meta] [--read-only] [--max-data-class …] [--require-user] [--allow-global-accounts] [--auth api_key|oauth --handoff-url URL --handoff-issuer ISS --handoff-secret S|- | --handoff-jwks-url URL] [--oidc-issuer URL --oidc-client-id ID [--oidc-client-secret S|-] [--oidc-user-claim C]]", verb)
		}
		projectID := *ef.projectID
		var old store.Endpoint
		if verb == "update" {
			var err error
			old, err = st.EndpointBySlug(ctx, *ef.slug)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("no endpoint %q", *ef.slug)
			} else if err != nil {
				return err
			}
			projectID = old.ProjectID
		} else if err := requireProject(ctx, st, projectID); err != nil {
			return err
		}
		tn, err := projectTenant(ctx, st, projectID)
		if err != nil {
			return err
		}
		rec, err := sessions.EndpointRecord(ctx, tn, ef.request(projectID))
		if err != nil {
			return err
		}
		if err := p.endpointAuth(ctx, a, st, ef, old, &rec); err != nil {
			return err
		}
		if verb == "update" {
			if err := st.UpdateEndpoint(ctx, rec); err != nil {
				return err
			}
			rec, err = st.EndpointBySlug(ctx, rec.Slug)
		} else {
			rec, err = st.CreateEndpoint(ctx, rec)
		}
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("the slug %q is taken; slugs are unique across the installation", *ef.slug)
		}
		if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, viewEndpoint(rec))
		}
		fmt.Fprintf(p.Stdout, "endpoint %s (%s mode) serves /%s/<userId> on the MCP host and /v1/mcp/%s/<userId>\n", rec.Slug, rec.Mode, rec.Slug, rec.Slug)
		return nil
	case "list":
		if *ef.projectID == "" || len(pos) > 0 {
			return usagef("usage: switchboard admin endpoint list --project ID [--json]")
		}
		list, err := st.ListEndpoints(ctx, *ef.projectID)
		if err != nil {
			return err
		}
		views := make([]endpointView, len(list))
		for i, e := range list {
			views[i] = viewEndpoint(e)
		}
		return printList(p.Stdout, *a.asJSON, views, "SLUG\tMODE\tREQUIRE USER\tSCOPE", func(v endpointView) []any {
			return []any{v.Slug, v.Mode, v.RequireUser, v.Spec}
		})
	case "delete":
		if len(pos) != 1 {
			return usagef("usage: switchboard admin endpoint delete SLUG")
		}
		if err := st.DeleteEndpoint(ctx, pos[0]); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no endpoint %q", pos[0])
		} else if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"slug": pos[0], "deleted": true})
		}
		fmt.Fprintf(p.Stdout, "deleted endpoint %s\n", pos[0])
		return nil
	}
	return usagef("unknown endpoint command %q", verb)
}

// endpointAuth sets rec's sign-in from the flags: --auth oauth with the
// handoff flags, --auth api_key, or (update without --auth) old's.
func (p *Program) endpointAuth(ctx context.Context, a *adminCommand, st *store.Store, ef endpointFlags, old store.Endpoint, rec *store.Endpoint) error {
	rec.ID = old.ID
	if rec.ID == "" {
		rec.ID = store.NewID()
	}
	handoff := *ef.handoffURL != "" || *ef.handoffIssuer != "" || *ef.handoffJWKS != "" || *ef.handoffSecret != ""
	oidc := *ef.oidcIssuer != "" || *ef.oidcClientID != "" || *ef.oidcClientSecret != "" || *ef.oidcUserClaim != ""
	if *ef.auth == "" {
		rec.Auth, rec.AuthConfig, rec.AuthSecret = old.Auth, old.AuthConfig, old.AuthSecret
		if handoff || oidc {
			return usagef("the --handoff-* and --oidc-* flags go with --auth oauth")
		}
		return nil
	}
	if handoff && oidc {
		return usagef("sign users in by handoff (--handoff-*) or with OpenID Connect (--oidc-*), not both")
	}
	id := mcpauth.Identity{Kind: mcpauth.KindHandoff, HandoffURL: *ef.handoffURL, Issuer: *ef.handoffIssuer, JWKSURL: *ef.handoffJWKS}
	secret := *ef.handoffSecret
	if oidc {
		id = mcpauth.Identity{Kind: mcpauth.KindOIDC, Issuer: *ef.oidcIssuer, ClientID: *ef.oidcClientID, UserClaim: *ef.oidcUserClaim}
		secret = *ef.oidcClientSecret
	}
	if secret == "-" {
		line, err := bufio.NewReader(p.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the secret: %w", err)
		}
		secret = strings.TrimSpace(line)
	}
	ring, err := loadKeyring(ctx, a.cfg, st, p.stderrLogger())
	if err != nil {
		return err
	}
	svc := mcpauth.New(mcpauth.Options{Store: st, Keyring: ring})
	return svc.Configure(rec, *ef.auth, id, secret)
}
