package httpapi

import (
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/connect"
)

// handleConnectLinkCreate is POST /v1/connect-links.
func (s *Server) handleConnectLinkCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		UserID           string   `json:"userId"`
		Connectors       []string `json:"connectors"`
		AuthConfigs      []string `json:"authConfigs"`
		RedirectURL      string   `json:"redirectUrl"`
		ExpiresInMinutes *int     `json:"expiresInMinutes"`
		ConnectionID     string   `json:"connectionId"`
	}
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	link, err := s.links.Create(r.Context(), tenantOf(r), connect.Request{
		UserID: body.UserID, Connectors: body.Connectors, AuthConfigs: body.AuthConfigs,
		RedirectURL: body.RedirectURL, ExpiresInMinutes: body.ExpiresInMinutes,
		ConnectionID: body.ConnectionID,
	})
	if err != nil {
		return err
	}
	respond(w, http.StatusCreated, link)
	return nil
}
