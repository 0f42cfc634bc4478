package httpapi

import (
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/redact"
)

// handleQuotaList is GET /v1/quotas: the project's quotas, oldest first.
func (s *Server) handleQuotaList(w http.ResponseWriter, r *http.Request) error {
	list, err := s.quotas.List(r.Context(), tenantOf(r))
	if err != nil {
		return err
	}
	items := make([]quota.View, len(list))
	for i, q := range list {
		items[i] = quota.ViewOf(q)
	}
	respond(w, http.StatusOK, items)
	return nil
}

// handleQuotaCreate is POST /v1/quotas: 201 with the new quota.
func (s *Server) handleQuotaCreate(w http.ResponseWriter, r *http.Request) error {
	var body quota.Request
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	q, err := s.quotas.Create(r.Context(), tenantOf(r), body)
	if err != nil {
		return err
	}
	respond(w, http.StatusCreated, quota.ViewOf(q))
	return nil
}

// handleQuotaGet is GET /v1/quotas/:id.
func (s *Server) handleQuotaGet(w http.ResponseWriter, r *http.Request) error {
	q, err := s.quotas.Get(r.Context(), tenantOf(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, quota.ViewOf(q))
	return nil
}

// handleQuotaPatch is PATCH /v1/quotas/:id: a new window and limit.
func (s *Server) handleQuotaPatch(w http.ResponseWriter, r *http.Request) error {
	var body quota.Request
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	q, err := s.quotas.Update(r.Context(), tenantOf(r), r.PathValue("id"), body)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, quota.ViewOf(q))
	return nil
}

// handleQuotaDelete is DELETE /v1/quotas/:id.
func (s *Server) handleQuotaDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.quotas.Delete(r.Context(), tenantOf(r), id); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]string{"id": id})
	return nil
}

// redactionView is the project's redaction rules as GET and PUT
// /v1/redaction answer them; enabled is false when it has none.
type redactionView struct {
	Enabled bool `json:"enabled"`
	redact.Rules
}

// handleRedactionGet is GET /v1/redaction.
func (s *Server) handleRedactionGet(w http.ResponseWriter, r *http.Request) error {
	rules, ok, err := s.redact.Get(r.Context(), tenantOf(r))
	if err != nil {
		return err
	}
	if !ok {
		rules = redact.Rules{Detectors: []string{}, Patterns: []redact.Pattern{}}
	}
	respond(w, http.StatusOK, redactionView{Enabled: ok, Rules: rules})
	return nil
}

// handleRedactionPut is PUT /v1/redaction: replaces the project's rules.
func (s *Server) handleRedactionPut(w http.ResponseWriter, r *http.Request) error {
	var body redact.Rules
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	rules, err := s.redact.Put(r.Context(), tenantOf(r), body)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, redactionView{Enabled: true, Rules: rules})
	return nil
}

// handleRedactionDelete is DELETE /v1/redaction: nothing is redacted any more.
func (s *Server) handleRedactionDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.redact.Delete(r.Context(), tenantOf(r)); err != nil {
		return err
	}
	respond(w, http.StatusOK, redactionView{Enabled: false, Rules: redact.Rules{Detectors: []string{}, Patterns: []redact.Pattern{}}})
	return nil
}
