package httpapi

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/dashboard"
	"github.com/switchboard-gw/switchboard/internal/operator"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The operator dashboard (docs/dashboard.md): pages at {web_url}/dashboard
// and their JSON backend at /api/dashboard, both behind a dashboard session
// (a cookie holding a token the database keeps hashed). API keys are refused
// there. Every state-changing request carries the session's CSRF token (the
// hidden field csrf, or the header X-CSRF-Token) and must come from the web
// app's origin (Origin and Sec-Fetch-Site, when the browser sends them).

// dashCSP is the dashboard pages' policy: only their own files, no inline
// script or style, never framed.
const dashCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// dashReq is what a dashboard handler gets: the signed-in operator's
// session, their projects and, on /dashboard/p/{project}/… and
// /api/dashboard/projects/{project}/…, the current project with their role.
type dashReq struct {
	sess     operator.Session
	projects []store.OperatorProject
	project  store.OperatorProject
}

// owner reports whether the operator owns the current project.
func (d *dashReq) owner() bool { return d.project.Role == store.RoleOwner }

// requireOwner refuses a member what only owners may do.
func (d *dashReq) requireOwner(what string) error {
	if !d.owner() {
		return apierr.New(apierr.Forbidden, "only an owner of the project can %s; you are a member", what)
	}
	return nil
}

// view is the page view of a screen with the layout's parts filled in.
func (d *dashReq) view(screen, title string, data any) dashboard.View {
	return dashboard.View{Title: title, Email: d.sess.Email, CSRF: d.sess.CSRF, Projects: d.projects,
		Project: d.project, Screen: screen, Data: data}
}

// dashHandler is a dashboard handler: a page (HTML) or an API route (JSON).
type dashHandler func(w http.ResponseWriter, r *http.Request, d *dashReq) error

// dashCookie is the session cookie's name: __Host- prefixed (no Domain,
// Path=/, Secure) when the web URL is https.
func (s *Server) dashCookie() string {
	if s.dashSecure() {
		return "__Host-sb_dash"
	}
	return "sb_dash"
}

func (s *Server) dashSecure() bool { return strings.HasPrefix(s.webURL, "https://") }

// dashToken is the session token of the request's cookie, or "".
func (s *Server) dashToken(r *http.Request) string {
	c, err := r.Cookie(s.dashCookie())
	if err != nil {
		return ""
	}
	return c.Value
}

// setDashCookie sets (or, with an empty token, clears) the session cookie.
// It lives as long as a session (Max-Age, so the browser's clock does not
// matter); the server's stored expiry is what counts.
func (s *Server) setDashCookie(w http.ResponseWriter, token string) {
	c := &http.Cookie{Name: s.dashCookie(), Value: token, Path: "/", HttpOnly: true, Secure: s.dashSecure(),
		SameSite: http.SameSiteLaxMode, MaxAge: int(s.operators.SessionTTL / time.Second)}
	if token == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// dashHeaders are the headers of every dashboard answer. The referrer
// policy is same-origin, not no-referrer: under no-referrer a browser
// sends "Origin: null" with a form post, which the origin check refuses;
// under same-origin the page's address (which may hold a sign-in link
// token) goes to this server only.
func dashHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", dashCSP)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// errAPIKeyRefused answers an API key sent to the dashboard.
var errAPIKeyRefused = apierr.New(apierr.Unauthorized,
	"API keys are not accepted on the dashboard: /api/dashboard needs a signed-in dashboard session (sign in at /dashboard/signin); use /v1 with an API key")

var errCSRF = apierr.New(apierr.Forbidden, "the form's CSRF token is missing or does not match your session; reload the page and submit it again")

var errCrossSite = apierr.New(apierr.Forbidden, "this request did not come from the dashboard's own pages (Origin or Sec-Fetch-Site)")

// stateChanging reports whether the method changes state.
func stateChanging(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// checkSameSite refuses a state-changing request that the browser says
// comes from another site or origin.
func (s *Server) checkSameSite(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return errCrossSite
	}
	// Under the pages' Referrer-Policy no-referrer a browser sends "Origin:
	// null" even on a same-origin form post; it is taken only when the
	// browser also says the request is same-origin (Sec-Fetch-Site, which
	// a page cannot set). The CSRF token is checked either way.
	origin := r.Header.Get("Origin")
	if origin == "null" && r.Header.Get("Sec-Fetch-Site") == "same-origin" {
		return nil
	}
	if origin != "" && !sameWebOrigin(origin, s.webURL) {
		return errCrossSite
	}
	return nil
}

// dashAuth reads the session and, for a state-changing request, checks the
// origin and the CSRF token; with a project in the path it loads the
// operator's role there (a project they are not in is NOT_FOUND).
func (s *Server) dashAuth(r *http.Request) (*dashReq, error) {
	if r.Header.Get("Authorization") != "" {
		return nil, errAPIKeyRefused
	}
	sess, err := s.operators.Session(r.Context(), s.dashToken(r))
	if err != nil {
		return nil, err
	}
	if stateChanging(r.Method) {
		if err := s.checkSameSite(r); err != nil {
			return nil, err
		}
		given := r.Header.Get("X-CSRF-Token")
		if given == "" {
			given = r.PostFormValue("csrf")
		}
		if !sess.CheckCSRF(given) {
			return nil, errCSRF
		}
	}
	d := &dashReq{sess: sess}
	if d.projects, err = s.store.OperatorProjects(r.Context(), sess.OperatorID); err != nil {
		return nil, err
	}
	if id := r.PathValue("project"); id != "" {
		found := false
		for _, p := range d.projects {
			if p.ProjectID == id {
				d.project, found = p, true
			}
		}
		if !found {
			return nil, apierr.New(apierr.NotFound, "project %s not found among your projects", id)
		}
	}
	return d, nil
}

// dashPage wraps a page handler: signed out, a GET goes to the sign-in
// page (and back after it); errors are shown as a page.
func (s *Server) dashPage(h dashHandler) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		dashHeaders(w)
		r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
		d, err := s.dashAuth(r)
		if errors.Is(err, operator.ErrSignedOut) && r.Method == http.MethodGet {
			http.Redirect(w, r, "/dashboard/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return nil
		}
		if err == nil {
			err = h(w, r, d)
		}
		if err != nil {
			s.dashError(w, r, d, err)
		}
		return nil
	}
}

// dashError shows an error as a page with its status; an internal error
// is logged and shown without detail.
func (s *Server) dashError(w http.ResponseWriter, r *http.Request, d *dashReq, err error) {
	e, ok := apierr.As(err)
	if !ok {
		s.log.ErrorContext(r.Context(), "dashboard request failed", "error", err.Error())
		e = apierr.New(apierr.InternalError, "internal error; the server log has the details under this request's id")
	}
	if d == nil {
		d = &dashReq{}
	}
	v := d.view("", http.StatusText(e.HTTPStatus()), e.Message)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(e.HTTPStatus())
	_ = dashboard.Render(w, "error", v)
}

// dashAPI wraps a JSON handler of /api/dashboard: errors are the usual
// envelope (401 signed out or with an API key).
func (s *Server) dashAPI(h dashHandler) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		dashHeaders(w)
		d, err := s.dashAuth(r)
		if err != nil {
			return err
		}
		return h(w, r, d)
	}
}

// render writes a page with status 200, or status when not 0.
func (s *Server) render(w http.ResponseWriter, status int, screen string, v dashboard.View) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if status != 0 {
		w.WriteHeader(status)
	}
	return dashboard.Render(w, screen, v)
}

// flashCookie carries a message across a redirect (never a secret).
const flashCookie = "sb_dash_flash"

// redirectFlash answers a form post with 303 to where, showing msg there.
func (s *Server) redirectFlash(w http.ResponseWriter, r *http.Request, where, msg string) error {
	if msg != "" {
		http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: url.QueryEscape(msg), Path: "/dashboard", MaxAge: 60,
			HttpOnly: true, Secure: s.dashSecure(), SameSite: http.SameSiteLaxMode})
	}
	http.Redirect(w, r, where, http.StatusSeeOther)
	return nil
}

// takeFlash returns the message of the previous request and clears it.
func (s *Server) takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/dashboard", MaxAge: -1, HttpOnly: true, Secure: s.dashSecure(), SameSite: http.SameSiteLaxMode})
	msg, _ := url.QueryUnescape(c.Value)
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}

// clientAddr is the request's peer address, for the sign-in rate limit.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// userError reports whether err is one the operator can fix (shown on the
// form) rather than a fault of the server.
func userError(err error) (string, bool) {
	if e, ok := apierr.As(err); ok && e.Code != apierr.InternalError {
		return e.Message, true
	}
	return "", false
}
