package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/dashboard"
	"github.com/switchboard-gw/switchboard/internal/operator"
)

// handleDashHome sends a signed-in operator to their first project's
// screen (or the projects screen), anyone else to the sign-in page.
func (s *Server) handleDashHome(w http.ResponseWriter, r *http.Request) error {
	dashHeaders(w)
	sess, err := s.operators.Session(r.Context(), s.dashToken(r))
	if err != nil {
		http.Redirect(w, r, "/dashboard/signin", http.StatusSeeOther)
		return nil
	}
	projects, err := s.store.OperatorProjects(r.Context(), sess.OperatorID)
	if err != nil {
		return err
	}
	where := "/dashboard/projects"
	if len(projects) > 0 {
		where = "/dashboard/p/" + projects[0].ProjectID + "/keys"
	}
	http.Redirect(w, r, where, http.StatusSeeOther)
	return nil
}

// handleDashStatic serves the dashboard's stylesheet and script.
func (s *Server) handleDashStatic(w http.ResponseWriter, r *http.Request) error {
	data, ct, err := dashboard.Static(r.PathValue("file"))
	if err != nil {
		return apierr.New(apierr.NotFound, "no file %q", r.PathValue("file"))
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(data)
	return nil
}

type signinData struct{ Email, Next string }

// safeNext keeps a post-sign-in destination inside the dashboard.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/dashboard/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/dashboard"
}

// preSession is the CSRF token of the sign-in forms, before a session
// exists: a random value in its own cookie, echoed by the form (double
// submit), so another site cannot sign a browser in to its account.
const preCookie = "sb_dash_pre"

func (s *Server) preToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(preCookie); err == nil && len(c.Value) == 64 {
		return c.Value
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	http.SetCookie(w, &http.Cookie{Name: preCookie, Value: tok, Path: "/dashboard", HttpOnly: true, Secure: s.dashSecure(), SameSite: http.SameSiteLaxMode})
	return tok
}

// checkPre checks a sign-in form's origin and its double-submit token.
func (s *Server) checkPre(r *http.Request) error {
	if err := s.checkSameSite(r); err != nil {
		return err
	}
	c, err := r.Cookie(preCookie)
	if err != nil || c.Value == "" || !(operator.Session{CSRF: c.Value}).CheckCSRF(r.PostFormValue("csrf")) {
		return errCSRF
	}
	return nil
}

func (s *Server) handleDashSigninPage(w http.ResponseWriter, r *http.Request) error {
	dashHeaders(w)
	if _, err := s.operators.Session(r.Context(), s.dashToken(r)); err == nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther) // signed in already
		return nil
	}
	v := dashboard.View{Title: "Sign in", CSRF: s.preToken(w, r), Flash: s.takeFlash(w, r),
		Data: signinData{Next: safeNext(r.URL.Query().Get("next"))}}
	return s.render(w, 0, "signin", v)
}

// handleDashSignin checks the email and password and starts a new session
// (the previous one, if any, ends: the cookie is rotated).
func (s *Server) handleDashSignin(w http.ResponseWriter, r *http.Request) error {
	dashHeaders(w)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	data := signinData{Email: r.PostFormValue("email"), Next: safeNext(r.PostFormValue("next"))}
	if err := s.checkPre(r); err != nil {
		return s.render(w, http.StatusForbidden, "signin", dashboard.View{Title: "Sign in", CSRF: s.preToken(w, r), Error: err.(*apierr.Error).Message, Data: data})
	}
	token, err := s.operators.SignIn(r.Context(), data.Email, r.PostFormValue("password"), clientAddr(r), s.dashToken(r))
	if msg, ok := userError(err); ok {
		e, _ := apierr.As(err)
		return s.render(w, e.HTTPStatus(), "signin", dashboard.View{Title: "Sign in", CSRF: s.preToken(w, r), Error: msg, Data: data})
	}
	if err != nil {
		return err
	}
	s.setDashCookie(w, token)
	http.Redirect(w, r, data.Next, http.StatusSeeOther)
	return nil
}

type linkData struct {
	Email, Token string
	Min          int
}

func (s *Server) handleDashLinkPage(w http.ResponseWriter, r *http.Request) error {
	dashHeaders(w)
	token := r.PathValue("token")
	v := dashboard.View{Title: "Choose a password", CSRF: s.preToken(w, r), Data: linkData{Token: token, Min: operator.MinPasswordLen}}
	o, err := s.operators.LinkOperator(r.Context(), token)
	if err == nil {
		v.Data = linkData{Email: o.Email, Token: token, Min: operator.MinPasswordLen}
	} else if _, ok := userError(err); !ok {
		return err
	}
	status := 0
	if err != nil {
		status = http.StatusGone
	}
	return s.render(w, status, "link", v)
}

// handleDashLink uses a sign-in link: sets the password and signs in.
func (s *Server) handleDashLink(w http.ResponseWriter, r *http.Request) error {
	dashHeaders(w)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	token := r.PathValue("token")
	data := linkData{Token: token, Min: operator.MinPasswordLen}
	if o, err := s.operators.LinkOperator(r.Context(), token); err == nil {
		data.Email = o.Email
	}
	fail := func(err error) error {
		e, _ := apierr.As(err)
		return s.render(w, e.HTTPStatus(), "link", dashboard.View{Title: "Choose a password", CSRF: s.preToken(w, r), Error: e.Message, Data: data})
	}
	if err := s.checkPre(r); err != nil {
		return fail(err)
	}
	sess, err := s.operators.UseLink(r.Context(), token, r.PostFormValue("password"), s.dashToken(r))
	if _, ok := userError(err); ok {
		return fail(err)
	}
	if err != nil {
		return err
	}
	s.setDashCookie(w, sess)
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
	return nil
}

// handleDashSignout ends the session on every replica.
func (s *Server) handleDashSignout(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := s.operators.SignOut(r.Context(), s.dashToken(r)); err != nil {
		return err
	}
	s.setDashCookie(w, "")
	return s.redirectFlash(w, r, "/dashboard/signin", "You are signed out.")
}

// handleDashSwitch goes to another project (the project switcher form).
func (s *Server) handleDashSwitch(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	id := r.URL.Query().Get("project")
	for _, p := range d.projects {
		if p.ProjectID == id {
			http.Redirect(w, r, "/dashboard/p/"+id+"/keys", http.StatusSeeOther)
			return nil
		}
	}
	return apierr.New(apierr.NotFound, "project %s not found among your projects", id)
}
