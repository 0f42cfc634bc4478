package httpapi

import (
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The Connect screen: create a connect link for a user (connect.Service,
// as POST /v1/connect-links; its URL shown once) and the project's hosted
// Connect page settings: name, accent colour, logo upload with a preview,
// redirect URLs and self-management (the rules of `admin project set`
// and `admin asset upload`, in package connect). Members create links;
// only owners change the settings.

type connectData struct {
	Settings  store.ConnectSettings
	Redirects string
	// Logo is the current logo's address (same origin), or "".
	Logo string
	// Swatch is a square of the accent colour as an image (the CSP allows
	// no inline style); the colour passed connect.CheckAccent.
	Swatch template.URL
	Link   *connect.Link
	// LinkForm is what was submitted, shown again with a problem.
	LinkForm struct{ UserID, Connectors, RedirectURL, Expires string }
}

func (s *Server) renderConnect(w http.ResponseWriter, r *http.Request, d *dashReq, status int, data connectData, problem string) error {
	pid := d.project.ProjectID
	cs, err := s.store.GetConnectSettings(r.Context(), pid)
	if err != nil {
		return err
	}
	urls, err := s.store.RedirectURLs(r.Context(), pid)
	if err != nil {
		return err
	}
	data.Settings, data.Redirects = cs, strings.Join(urls, "\n")
	if cs.LogoKey != "" {
		data.Logo = "/assets/" + cs.LogoKey
	}
	if data.Settings.Accent == "" || connect.CheckAccent(data.Settings.Accent) != nil {
		data.Settings.Accent = "#4338ca"
	}
	data.Swatch = template.URL("data:image/svg+xml," + url.PathEscape(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" rx="2" fill="`+data.Settings.Accent+`"/></svg>`))
	v := d.view("connect", "Connect", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "connect", v)
}

func (s *Server) handleDashConnect(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderConnect(w, r, d, 0, connectData{}, "")
}

// handleDashConnectLink creates a link and shows its URL in the answer
// (the token is never put in a redirect or a cookie).
func (s *Server) handleDashConnectLink(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	var data connectData
	f := &data.LinkForm
	f.UserID, f.Connectors = strings.TrimSpace(r.PostFormValue("userId")), r.PostFormValue("connectors")
	f.RedirectURL, f.Expires = strings.TrimSpace(r.PostFormValue("redirectUrl")), r.PostFormValue("expires")
	req := connect.Request{UserID: f.UserID, RedirectURL: f.RedirectURL}
	for _, c := range strings.Split(f.Connectors, ",") {
		if c = strings.TrimSpace(c); c != "" {
			req.Connectors = append(req.Connectors, c)
		}
	}
	if f.Expires != "" {
		n, err := strconv.Atoi(f.Expires)
		if err != nil {
			return s.renderConnect(w, r, d, http.StatusUnprocessableEntity, data, "the link's lifetime is a whole number of minutes")
		}
		req.ExpiresInMinutes = &n
	}
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	link, err := s.links.Create(r.Context(), tn, req)
	if msg, ok := formProblem(err); ok {
		return s.renderConnect(w, r, d, http.StatusUnprocessableEntity, data, msg)
	}
	if err != nil {
		return err
	}
	return s.renderConnect(w, r, d, http.StatusOK, connectData{Link: &link}, "")
}

// handleDashConnectSettings saves the Connect page settings (owners), with
// an optional logo upload (multipart field logo) or its removal.
func (s *Server) handleDashConnectSettings(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("change the Connect page settings"); err != nil {
		return err
	}
	pid := d.project.ProjectID
	if err := r.ParseMultipartForm(connect.MaxUpload + 64<<10); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return s.renderConnect(w, r, d, http.StatusUnprocessableEntity, connectData{}, "the form did not arrive whole; a logo is at most 2 MiB")
	}
	cs, err := s.store.GetConnectSettings(r.Context(), pid)
	if err != nil {
		return err
	}
	cs.Name = strings.TrimSpace(r.FormValue("name"))
	cs.Accent = strings.TrimSpace(r.FormValue("accent"))
	cs.SelfManage = r.FormValue("selfManage") == "on"
	problem := ""
	if len(cs.Name) > 100 {
		problem = "the name shown on the Connect page is at most 100 characters"
	}
	if err := connect.CheckAccent(cs.Accent); err != nil {
		problem = err.Error()
	}
	urls, err := connect.ParseRedirectURLs(strings.Split(r.FormValue("redirectUrls"), "\n"))
	if err != nil {
		problem = "redirect URLs: " + err.Error()
	}
	var asset *store.Asset
	if file, hdr, err := r.FormFile("logo"); err == nil {
		data, rerr := io.ReadAll(io.LimitReader(file, connect.MaxUpload+1))
		file.Close()
		if rerr != nil {
			return rerr
		}
		if len(data) > 0 {
			a, aerr := connect.NewAsset(pid, hdr.Filename, data)
			if aerr != nil {
				problem = "logo: " + aerr.Error()
			}
			asset = &a
		}
	}
	if problem != "" {
		return s.renderConnect(w, r, d, http.StatusUnprocessableEntity, connectData{}, problem)
	}
	if asset != nil {
		if err := s.store.PutAsset(r.Context(), *asset); err != nil {
			return err
		}
		cs.LogoKey = asset.Key
	} else if r.FormValue("removeLogo") == "on" {
		cs.LogoKey = ""
	}
	if err := s.store.SetRedirectURLs(r.Context(), pid, urls); err != nil {
		return err
	}
	if err := s.store.SetConnectSettings(r.Context(), pid, cs); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+pid+"/connect", "Connect page settings saved: new links show them at once.")
}
