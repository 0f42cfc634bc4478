package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// The sessions screen: the project's live sessions (newest 50), each as
// GET /v1/sessions/:id shows it (session.Service.View): its user, expiry,
// connectors and actions in scope, and its policy. Read only.

// dashSessionLimit is how many sessions the screen shows.
const dashSessionLimit = 50

type sessionRow struct {
	session.View
	// PolicyText is the session's policy as JSON, for reading.
	PolicyText string
	// Problem says why the session could not be resolved (its scope names
	// a connector that no longer exists, say).
	Problem string
}

func (s *Server) handleDashSessions(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	pid := d.project.ProjectID
	live, err := s.store.ListLiveSessions(r.Context(), pid, dashSessionLimit)
	if err != nil {
		return err
	}
	tn, err := s.catalogs.Load(r.Context(), pid)
	if err != nil {
		return err
	}
	var rows []sessionRow
	for _, st := range live {
		row := sessionRow{View: session.View{ID: st.ID, UserID: st.UserID, ExpiresAt: st.ExpiresAt}}
		ss, err := s.sessions.Get(r.Context(), pid, st.ID)
		if err == nil {
			var sc *session.Scope
			if sc, err = s.sessions.Scope(r.Context(), tn, ss.Spec); err == nil {
				row.View, err = s.sessions.View(r.Context(), tn, ss, sc)
			}
		}
		if msg, ok := formProblem(err); ok {
			row.Problem = msg
		} else if err != nil {
			return err
		}
		if p, err := json.MarshalIndent(row.Policy, "", "  "); err == nil {
			row.PolicyText = string(p)
		}
		rows = append(rows, row)
	}
	return s.render(w, 0, "sessions", d.view("sessions", "Sessions", rows))
}
