package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The end users screen: one user's accounts (looked up by userId, as GET
// /v1/connections does) with status, label, last use and scopes, to
// rename (account.Service.Update, as PATCH /v1/connections/:id), make the
// default or delete; and the project's global accounts with what tools
// and whether the proxy they may serve (account.CheckGlobalAllowance, as
// `admin global allow`). Members and owners alike.

type globalRow struct {
	connectionItem
	Tools string
	Proxy bool
}

type usersData struct {
	UserID, Status string
	Searched       bool
	Accounts       []connectionItem
	Globals        []globalRow
}

// usersPath is the screen's address, showing userID's accounts.
func usersPath(projectID, userID string) string {
	p := "/dashboard/p/" + projectID + "/users"
	if userID != "" {
		p += "?userId=" + url.QueryEscape(userID)
	}
	return p
}

func (s *Server) handleDashUsers(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	q := r.URL.Query()
	data := usersData{UserID: strings.TrimSpace(q.Get("userId")), Status: q.Get("status")}
	var issues apierr.Issues
	account.CheckUserID(data.UserID, "userId", false, &issues)
	problem, status := "", 0
	if err := issues.Err(); err != nil {
		problem, _ = formProblem(err)
		status, data.UserID = http.StatusUnprocessableEntity, ""
	}
	conns, err := s.accounts.List(r.Context(), d.project.ProjectID, data.UserID)
	if err != nil {
		return err
	}
	data.Searched = data.UserID != ""
	for _, c := range conns {
		if c.Global {
			p, err := s.store.GetGlobalPermission(r.Context(), c.ID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			data.Globals = append(data.Globals, globalRow{connectionItem: newConnectionItem(c), Tools: strings.Join(p.Tools, ", "), Proxy: p.Proxy})
			continue
		}
		if data.Status == "" || c.Status == data.Status {
			data.Accounts = append(data.Accounts, newConnectionItem(c))
		}
	}
	v := d.view("users", "End users", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "users", v)
}

// userAccount is the project's account named in the path; back is the
// screen showing its user.
func (s *Server) userAccount(r *http.Request, d *dashReq) (store.Connection, string, error) {
	c, err := s.accounts.Get(r.Context(), d.project.ProjectID, r.PathValue("id"))
	if err != nil {
		return c, "", err
	}
	user := c.UserID
	if c.Global {
		user = r.PostFormValue("userId")
	}
	return c, usersPath(d.project.ProjectID, user), nil
}

func (s *Server) handleDashAccountRename(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	c, back, err := s.userAccount(r, d)
	if err != nil {
		return err
	}
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	if _, err := s.accounts.Update(r.Context(), tn, c.ID, account.UpdateRequest{Name: &name}); err != nil {
		if msg, ok := formProblem(err); ok {
			return s.redirectFlash(w, r, back, "Not renamed: "+msg)
		}
		return err
	}
	return s.redirectFlash(w, r, back, "Account renamed to "+name+".")
}

func (s *Server) handleDashAccountDefault(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	c, back, err := s.userAccount(r, d)
	if err != nil {
		return err
	}
	if _, err := s.accounts.SetDefault(r.Context(), d.project.ProjectID, c.ID); err != nil {
		return err
	}
	return s.redirectFlash(w, r, back, c.Name+" is now "+c.UserID+"'s default "+c.ConnectorID+" account.")
}

func (s *Server) handleDashAccountDelete(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	c, back, err := s.userAccount(r, d)
	if err != nil {
		return err
	}
	if err := s.accounts.Delete(r.Context(), d.project.ProjectID, c.ID); err != nil {
		return err
	}
	return s.redirectFlash(w, r, back, "Account "+c.Name+" deleted with its credential.")
}

// handleDashGlobalAllow sets what a global account may serve: tools (ids
// or prefix* patterns, comma-separated) and the proxy; neither revokes.
func (s *Server) handleDashGlobalAllow(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	c, back, err := s.userAccount(r, d)
	if err != nil {
		return err
	}
	tools, proxy := account.SplitToolPatterns(r.PostFormValue("tools")), r.PostFormValue("proxy") == "on"
	if len(tools) == 0 && !proxy {
		if err := s.store.DeleteGlobalPermission(r.Context(), c.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return s.redirectFlash(w, r, back, "Global account "+c.Name+" may run nothing now.")
	}
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	if err := account.CheckGlobalAllowance(c, tn.Catalog, tools); err != nil {
		return apierr.New(apierr.ValidationError, "%s", err.Error())
	}
	if err := s.store.SetGlobalPermission(r.Context(), c.ID, store.GlobalPermission{Tools: tools, Proxy: proxy}); err != nil {
		return err
	}
	return s.redirectFlash(w, r, back, "Global account "+c.Name+" may now run: "+strings.Join(tools, ", ")+".")
}
