package httpapi

import (
	"bytes"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// oauthCORS lets browser-based MCP clients read the metadata and call the
// registration, token and revocation endpoints, which take no cookie.
func oauthCORS(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Mcp-Protocol-Version")
}

func (s *Server) handleOAuthPreflight(w http.ResponseWriter, r *http.Request) error {
	oauthCORS(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// writeOAuth answers an OAuth endpoint: v as JSON, or the OAuth error.
func writeOAuth(w http.ResponseWriter, status int, v any, e *mcpauth.Error) {
	oauthCORS(w)
	w.Header().Set("Cache-Control", "no-store")
	if e != nil {
		if e.Status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_client"`)
		}
		writeJSON(w, e.Status, e)
		return
	}
	writeJSON(w, status, v)
}

func (s *Server) handleASMetadata(w http.ResponseWriter, r *http.Request) error {
	writeOAuth(w, http.StatusOK, s.mcpAuth.Metadata(), nil)
	return nil
}

// handleResourceMetadata serves the protected-resource metadata of an
// oauth endpoint's MCP URL with the go-sdk's handler; any other slug is 404.
func (s *Server) handleResourceMetadata(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	e, err := s.store.EndpointBySlug(r.Context(), slug)
	if err != nil || e.Auth != store.AuthOAuth {
		return apierr.New(apierr.NotFound, "no MCP endpoint with OAuth sign-in at this path")
	}
	resource := s.baseURL + "/v1/mcp/" + slug
	if !strings.HasPrefix(r.URL.Path, mcpauth.PathResourceMetadata+"/v1/mcp/") {
		resource = s.mcpURL + "/" + slug
	}
	auth.ProtectedResourceMetadataHandler(s.mcpAuth.ResourceMetadata(resource, slug)).ServeHTTP(w, r)
	return nil
}

func (s *Server) handleOAuthRegister(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		writeOAuth(w, 0, nil, &mcpauth.Error{Code: "invalid_client_metadata", Description: "the body is too large or unreadable", Status: http.StatusBadRequest})
		return nil
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	resp, e := s.mcpAuth.Register(r.Context(), body, host)
	if e != nil && e.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "3600")
	}
	writeOAuth(w, http.StatusCreated, resp, e)
	return nil
}

func (s *Server) handleOAuthToken(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		writeOAuth(w, 0, nil, &mcpauth.Error{Code: "invalid_request", Description: "send the parameters as application/x-www-form-urlencoded", Status: http.StatusBadRequest})
		return nil
	}
	resp, e := s.mcpAuth.Token(r.Context(), r.PostForm)
	writeOAuth(w, http.StatusOK, resp, e)
	return nil
}

func (s *Server) handleOAuthRevoke(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		writeOAuth(w, 0, nil, &mcpauth.Error{Code: "invalid_request", Description: "send the parameters as application/x-www-form-urlencoded", Status: http.StatusBadRequest})
		return nil
	}
	if e := s.mcpAuth.Revoke(r.Context(), r.PostForm); e != nil {
		writeOAuth(w, 0, nil, e)
		return nil
	}
	oauthCORS(w)
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleOAuthAuthorize starts a sign-in: it binds it to this browser with a
// cookie and sends the browser to the project's handoff URL.
func (s *Server) handleOAuthAuthorize(w http.ResponseWriter, r *http.Request) error {
	start, e := s.mcpAuth.Authorize(r.Context(), r.URL.Query())
	if e != nil {
		return s.writeSignInPage(w, e.Status, signInData{Title: "This sign-in cannot continue", Detail: e.Description})
	}
	if start.Cookie != "" {
		http.SetCookie(w, &http.Cookie{Name: mcpauth.CookiePrefix + start.GrantID, Value: start.Cookie, Path: "/oauth/", HttpOnly: true,
			Secure: strings.HasPrefix(s.baseURL, "https://"), SameSite: http.SameSiteLaxMode, MaxAge: int(mcpauth.RequestTTL.Seconds())})
	}
	http.Redirect(w, r, start.Redirect, http.StatusFound)
	return nil
}

func signInCookie(r *http.Request, grantID string) string {
	c, err := r.Cookie(mcpauth.CookiePrefix + grantID)
	if err != nil {
		return ""
	}
	return c.Value
}

// handleOAuthHandoff takes the browser back from the project's app with its
// assertion (sb_request, assertion) and shows the consent page's URL.
func (s *Server) handleOAuthHandoff(w http.ResponseWriter, r *http.Request) error {
	id := r.URL.Query().Get("sb_request")
	if e := s.mcpAuth.Handoff(r.Context(), id, signInCookie(r, id), r.URL.Query().Get("assertion")); e != nil {
		return s.writeSignInPage(w, e.Status, signInData{Title: "This sign-in cannot continue", Detail: e.Description})
	}
	http.Redirect(w, r, s.baseURL+mcpauth.PathConsent+url.PathEscape(id), http.StatusSeeOther)
	return nil
}

// handleOAuthOIDCCallback takes the browser back from the project's OpenID
// Connect provider (state is the sign-in) and shows the consent page's URL.
func (s *Server) handleOAuthOIDCCallback(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	id := q.Get("state")
	if e := s.mcpAuth.OIDCCallback(r.Context(), id, signInCookie(r, id), q.Get("code"), q.Get("error")); e != nil {
		return s.writeSignInPage(w, e.Status, signInData{Title: "This sign-in cannot continue", Detail: e.Description})
	}
	http.Redirect(w, r, s.baseURL+mcpauth.PathConsent+url.PathEscape(id), http.StatusSeeOther)
	return nil
}

// consentTool is a line of the consent page.
type consentConnector struct {
	Name, Status, ConnectURL string
	Actions                  int
}

// handleOAuthConsent shows what the client will be able to do: the
// endpoint's connectors and tools, the user's accounts, a Connect link for
// each missing account, and approve/deny.
func (s *Server) handleOAuthConsent(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	p, e := s.mcpAuth.Consent(r.Context(), id, signInCookie(r, id))
	if e != nil {
		return s.writeSignInPage(w, e.Status, signInData{Title: "This sign-in cannot continue", Detail: e.Description})
	}
	tn, err := s.catalogs.Load(r.Context(), p.Endpoint.ProjectID)
	if err != nil {
		return err
	}
	ss, err := s.sessions.ForEndpoint(r.Context(), p.Endpoint.ProjectID, p.Endpoint.Slug, p.Grant.UserID)
	if err != nil {
		return err
	}
	sc, err := s.sessions.Scope(r.Context(), tn, ss.Spec)
	if err != nil {
		return err
	}
	v, err := s.sessions.View(r.Context(), tn, ss, sc)
	if err != nil {
		return err
	}
	d := signInData{Client: p.Client.Name, Endpoint: p.Endpoint.Slug, User: p.Grant.UserID, Redirect: redirectHost(p.Grant.RedirectURI)}
	for _, c := range v.Connectors {
		cc := consentConnector{Name: c.Name, Status: c.Connection.Status, Actions: c.Actions}
		if c.Connection.Status != "connected" {
			if l, err := s.links.Create(r.Context(), tn, connect.Request{UserID: p.Grant.UserID, Connectors: []string{c.ID}}); err == nil {
				cc.ConnectURL = l.URL
			}
		}
		d.Connectors = append(d.Connectors, cc)
	}
	for _, t := range sc.Tools {
		d.Tools = append(d.Tools, t.ID)
	}
	if cs, err := s.store.GetConnectSettings(r.Context(), p.Endpoint.ProjectID); err == nil {
		d.Brand = cs.Name
		if accentPattern.MatchString(cs.Accent) {
			d.Accent = template.CSS(cs.Accent)
		}
	}
	return s.writeSignInPage(w, http.StatusOK, d)
}

var accentPattern = regexp.MustCompile(`^#[0-9a-fA-F]{3,8}$`)

func redirectHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Host
}

// handleOAuthDecide is the consent form's POST (decision=approve|deny). The
// sign-in cookie is SameSite=Lax, so a form of another site does not carry it.
func (s *Server) handleOAuthDecide(w http.ResponseWriter, r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return s.writeSignInPage(w, http.StatusForbidden, signInData{Title: "This sign-in cannot continue", Detail: "the decision must come from the consent page itself"})
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		return s.writeSignInPage(w, http.StatusBadRequest, signInData{Title: "This sign-in cannot continue", Detail: "the form could not be read"})
	}
	d := r.PostForm.Get("decision")
	if d != "approve" && d != "deny" {
		return s.writeSignInPage(w, http.StatusBadRequest, signInData{Title: "This sign-in cannot continue", Detail: "choose approve or deny"})
	}
	id := r.PathValue("id")
	to, e := s.mcpAuth.Decide(r.Context(), id, signInCookie(r, id), d == "approve")
	if e != nil {
		return s.writeSignInPage(w, e.Status, signInData{Title: "This sign-in cannot continue", Detail: e.Description})
	}
	http.SetCookie(w, &http.Cookie{Name: mcpauth.CookiePrefix + id, Value: "", Path: "/oauth/", MaxAge: -1})
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

type signInData struct {
	Title, Detail                    string
	Brand                            string
	Accent                           template.CSS
	Client, Endpoint, User, Redirect string
	Connectors                       []consentConnector
	Tools                            []string
}

// signInCSP: our stylesheet and the accent's inline rule, no script, the
// form posts to this origin only.
const signInCSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

var signInPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>{{if .Title}}{{.Title}}{{else}}Allow {{.Client}}{{end}}</title>
<link rel="stylesheet" href="/connect/static/page.css">
{{if .Accent}}<style>:root{--accent: {{.Accent}}}</style>{{end}}
</head><body><main class="page">
<header class="brand"><span class="brand-mark"></span><strong>{{if .Brand}}{{.Brand}}{{else}}Switchboard{{end}}</strong></header>
{{if .Title}}<div class="done failed"><h1>{{.Title}}</h1><p>{{.Detail}}</p></div>{{else}}
<h1>Allow {{.Client}} to use your tools?</h1>
<p class="muted">Signed in as <strong>{{.User}}</strong>. {{.Client}} ({{.Redirect}}) asks to call the MCP endpoint <strong>{{.Endpoint}}</strong> for you, with your accounts only.</p>
<h3>Applications</h3>
<ul class="accounts">{{range .Connectors}}<li><strong>{{.Name}}</strong> <span class="muted">{{.Actions}} tools</span>
{{if eq .Status "connected"}}<span class="badge">connected</span>{{else}}<span class="badge warn">not connected</span>
{{if .ConnectURL}} <a class="button secondary" href="{{.ConnectURL}}" target="_blank" rel="noopener">Connect</a>{{end}}{{end}}</li>{{end}}</ul>
<h3>Tools</h3>
<p class="muted">{{range $i, $t := .Tools}}{{if $i}}, {{end}}{{$t}}{{end}}</p>
<form method="post">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>{{end}}
</main></body></html>
`))

func (s *Server) writeSignInPage(w http.ResponseWriter, status int, d signInData) error {
	var buf bytes.Buffer
	if err := signInPage.Execute(&buf, d); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Security-Policy", signInCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}
