package httpapi

import (
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// The triggers screen: the project's triggers (of one user, when userId is
// given), with their connection, fire count and last firing, and delete
// (trigger.Service, as GET and DELETE /v1/triggers). Members and owners.

type triggersData struct {
	UserID   string
	Triggers []triggerItem
}

func (s *Server) handleDashTriggers(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	data := triggersData{UserID: strings.TrimSpace(r.URL.Query().Get("userId"))}
	var issues apierr.Issues
	account.CheckUserID(data.UserID, "userId", false, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	list, err := s.triggers.List(r.Context(), d.project.ProjectID, data.UserID)
	if err != nil {
		return err
	}
	for _, t := range list {
		data.Triggers = append(data.Triggers, newTriggerItem(t))
	}
	v := d.view("triggers", "Triggers", data)
	v.Flash = s.takeFlash(w, r)
	return s.render(w, 0, "triggers", v)
}

func (s *Server) handleDashTriggerDelete(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	if err := s.triggers.Delete(r.Context(), tn, r.PathValue("id")); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/triggers", "Trigger deleted: the provider's events for it are no longer accepted.")
}
