package httpapi

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// approvalCSRFCookie holds the page's anti-forgery token: the form must
// send the same value back, which a page of another site cannot read.
const approvalCSRFCookie = "sb_approval_csrf"

// approvalCSRFMaxAge outlives any approval; the approval's own expiry is
// enforced by the decision, not by the cookie.
const approvalCSRFMaxAge = 3600

// approvalPageCSP allows no script at all: the page is a plain form.
const approvalPageCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

var approvalPage = template.Must(template.New("approval").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Approve a tool call</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f5;padding:1rem;overflow:auto;white-space:pre-wrap}button{font-size:1rem;padding:.5rem 1.5rem;margin-right:1rem}</style>
</head><body>
{{if .Done}}<h1>{{.Done}}</h1><p>{{.Detail}}</p>{{else}}
<h1>Approve this call?</h1>
<p><strong>{{.What}}</strong> for user <strong>{{.User}}</strong>{{if .Rule}}, held by policy rule {{.Rule}}{{end}}.</p>
<p>Input, exactly as it will be sent:</p>
<pre>{{.Input}}</pre>
<p>This request expires at {{.Expires}}. The call runs once, with this input, when the agent retries it.</p>
<form method="post">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>{{end}}
</body></html>
`))

type approvalPageData struct {
	Done, Detail                           string
	What, User, Rule, Input, Expires, CSRF string
}

func (s *Server) approvalPageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", approvalPageCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
}

func (s *Server) writeApprovalPage(w http.ResponseWriter, status int, d approvalPageData) error {
	var buf bytes.Buffer
	if err := approvalPage.Execute(&buf, d); err != nil {
		return err
	}
	s.approvalPageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// approvalPageError answers a link that cannot be used with a page, not
// JSON: a person opened it.
func (s *Server) approvalPageError(w http.ResponseWriter, err error) error {
	e, ok := apierr.As(err)
	if !ok {
		return err
	}
	return s.writeApprovalPage(w, e.HTTPStatus(), approvalPageData{Done: "This link cannot be used", Detail: e.Message})
}

// handleApprovalPage is GET {web_url}/approvals/:token: the approve/deny
// page of an approver link. Opening it changes nothing (link previews and
// scanners open links too); the decision is the form's POST.
func (s *Server) handleApprovalPage(w http.ResponseWriter, r *http.Request) error {
	a, err := s.policies.ByLink(r.Context(), r.PathValue("token"))
	if err != nil {
		return s.approvalPageError(w, err)
	}
	v := s.policies.View(a)
	var pretty bytes.Buffer
	if json.Indent(&pretty, v.Input, "", "  ") != nil {
		pretty.Write(v.Input)
	}
	var b [24]byte
	_, _ = rand.Read(b[:])
	csrf := base64.RawURLEncoding.EncodeToString(b[:])
	http.SetCookie(w, &http.Cookie{Name: approvalCSRFCookie, Value: csrf, Path: "/approvals/", HttpOnly: true,
		Secure: r.TLS != nil || len(s.webURL) > 8 && s.webURL[:8] == "https://", SameSite: http.SameSiteStrictMode,
		MaxAge: approvalCSRFMaxAge})
	what := v.ToolID
	if v.Proxy {
		what = "A raw API call to " + v.ConnectorID
	}
	return s.writeApprovalPage(w, http.StatusOK, approvalPageData{What: what, User: v.UserID, Rule: v.RuleID,
		Input: pretty.String(), Expires: v.ExpiresAt.Format(time.RFC1123), CSRF: csrf})
}

// handleApprovalPageDecide is the page's form: decision=approve|deny with
// the anti-forgery token of the page's cookie. A browser request from
// another origin is refused; the link is spent by the decision.
func (s *Server) handleApprovalPageDecide(w http.ResponseWriter, r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !sameWebOrigin(o, s.webURL) {
		return s.approvalPageError(w, apierr.New(apierr.Forbidden, "the decision must come from the approval page itself"))
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return s.approvalPageError(w, apierr.New(apierr.Forbidden, "the decision must come from the approval page itself"))
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		return s.approvalPageError(w, apierr.New(apierr.ValidationError, "the form could not be read"))
	}
	c, err := r.Cookie(approvalCSRFCookie)
	form := r.PostForm.Get("csrf")
	if err != nil || c.Value == "" || form == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(form)) != 1 {
		return s.approvalPageError(w, apierr.New(apierr.Forbidden, "the page's form token is missing or wrong; open the link again"))
	}
	var approve bool
	switch r.PostForm.Get("decision") {
	case "approve":
		approve = true
	case "deny":
	default:
		return s.approvalPageError(w, apierr.New(apierr.ValidationError, "choose approve or deny"))
	}
	if _, err := s.policies.DecideByLink(r.Context(), r.PathValue("token"), approve); err != nil {
		return s.approvalPageError(w, err)
	}
	http.SetCookie(w, &http.Cookie{Name: approvalCSRFCookie, Value: "", Path: "/approvals/", MaxAge: -1})
	done := "Approved"
	detail := "The call runs once, with the input shown, when the agent retries it. This link no longer works."
	if !approve {
		done, detail = "Denied", "The call will not run. This link no longer works."
	}
	return s.writeApprovalPage(w, http.StatusOK, approvalPageData{Done: done, Detail: detail})
}
