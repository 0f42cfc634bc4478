package httpapi

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/connect"
)

// pageCSP lets the Connect page run only its own script and style, call
// only the API, and never be framed.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; " +
	"connect-src 'self' %s; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func (s *Server) pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", strings.Replace(pageCSP, "%s", s.baseURL, 1))
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// handleConnectPage is GET {web_url}/connect/:token, the hosted Connect page.
func (s *Server) handleConnectPage(w http.ResponseWriter, r *http.Request) error {
	s.pageHeaders(w)
	api := ""
	if s.webURL != s.baseURL {
		api = s.baseURL
	}
	var buf bytes.Buffer
	if err := connect.Templates.ExecuteTemplate(&buf, "page.html", map[string]string{"Token": r.PathValue("token"), "API": api}); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
	return nil
}

// handleConnectStatic serves the page's stylesheet and script.
func (s *Server) handleConnectStatic(w http.ResponseWriter, r *http.Request) error {
	name := path.Base(r.PathValue("file"))
	data, err := fs.ReadFile(connect.Web, "web/"+name)
	if err != nil || strings.HasSuffix(name, ".html") {
		return apierr.New(apierr.NotFound, "no file %q", name)
	}
	ct := "text/css; charset=utf-8"
	if strings.HasSuffix(name, ".js") {
		ct = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(data)
	return nil
}

// cors lets only the service's own web app call the Connect backend.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && s.originAllowed(r) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", o)
		h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		// A web app on another origin than the API must be able to keep the
		// cookie that authorize sets (it is only ever sent to the callback).
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Vary", "Origin")
	}
	w.Header().Set("Cache-Control", "no-store")
}

// handleConnectPreflight answers CORS preflights of the Connect backend.
func (s *Server) handleConnectPreflight(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleConnectGet is GET /api/connect/:token.
func (s *Server) handleConnectGet(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	v, err := s.page.Get(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, v)
	return nil
}

// handleConnectAuthorize is POST /api/connect/:token/authorize.
func (s *Server) handleConnectAuthorize(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	var body struct {
		AuthConfigID string         `json:"authConfigId"`
		Name         string         `json:"name"`
		ConnectionID string         `json:"connectionId"`
		Fields       map[string]any `json:"fields"`
	}
	if err := s.decodeBody(w, r, &body).Err(); err != nil {
		return err
	}
	a, err := s.page.Authorize(r.Context(), r.PathValue("token"), connect.AuthorizeRequest{AuthConfigID: body.AuthConfigID, Name: body.Name,
		ConnectionID: body.ConnectionID, Fields: body.Fields})
	if err != nil {
		return err
	}
	// The cookie binds the sign-in to this browser; the callback needs it.
	http.SetCookie(w, a.Cookie)
	respond(w, http.StatusOK, map[string]string{"url": a.URL})
	return nil
}

// handleConnectAccounts is POST /api/connect/:token/accounts: 201 for a new
// account, 200 when it reconnects connectionId.
func (s *Server) handleConnectAccounts(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	var body struct {
		AuthConfigID string         `json:"authConfigId"`
		Fields       map[string]any `json:"fields"`
		Name         string         `json:"name"`
		ConnectionID string         `json:"connectionId"`
	}
	if err := s.decodeBody(w, r, &body).Err(); err != nil {
		return err
	}
	acct, created, err := s.page.SaveAccount(r.Context(), r.PathValue("token"), connect.AccountRequest{
		AuthConfigID: body.AuthConfigID, Fields: body.Fields, Name: body.Name, ConnectionID: body.ConnectionID})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	respond(w, status, acct)
	return nil
}

// handleConnectConnections is GET /api/connect/:token/connections.
func (s *Server) handleConnectConnections(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	list, err := s.page.Connections(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, list)
	return nil
}

// handleConnectRename is PATCH /api/connect/:token/connections/:id.
func (s *Server) handleConnectRename(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	var body struct {
		Name string `json:"name"`
	}
	if err := s.decodeBody(w, r, &body).Err(); err != nil {
		return err
	}
	acct, err := s.page.Rename(r.Context(), r.PathValue("token"), r.PathValue("id"), body.Name)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, acct)
	return nil
}

// handleConnectRemove is DELETE /api/connect/:token/connections/:id.
func (s *Server) handleConnectRemove(w http.ResponseWriter, r *http.Request) error {
	s.cors(w, r)
	if err := s.page.Remove(r.Context(), r.PathValue("token"), r.PathValue("id")); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "erased": true})
	return nil
}

// handleOAuthCallback is GET /api/oauth/callback: it completes the flow and
// shows the result page (and sends the user on to the link's redirectUrl).
func (s *Server) handleOAuthCallback(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var nonce string
	if state := q.Get("state"); state != "" {
		if c, err := r.Cookie(connect.BrowserCookieName(state)); err == nil {
			nonce = c.Value
		}
		// The sign-in is over either way (its state is spent).
		http.SetCookie(w, s.page.ClearBrowserCookie(state))
	}
	res := s.page.Callback(r.Context(), q, nonce)
	s.pageHeaders(w)
	var buf bytes.Buffer
	if err := connect.Templates.ExecuteTemplate(&buf, "callback.html", res); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !res.OK {
		w.WriteHeader(http.StatusBadRequest)
	}
	_, _ = w.Write(buf.Bytes())
	return nil
}

// handleProjectAsset serves a project upload: content-addressed, cached a
// year, immutable and inert.
func (s *Server) handleProjectAsset(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Security-Policy", assetCSP)
	key := "projects/" + r.PathValue("project") + "/" + r.PathValue("file")
	a, err := s.store.GetAsset(r.Context(), key)
	if err != nil {
		return apierr.New(apierr.NotFound, "no asset %s", key)
	}
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("Content-Disposition", "inline")
	_, _ = w.Write(a.Data)
	return nil
}
