package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/netip"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/trigger"
)

// triggerItem is a trigger as the API shows it (openapi.json, schema Trigger).
type triggerItem struct {
	ID           string     `json:"id"`
	ConnectionID string     `json:"connectionId"`
	ConnectorID  string     `json:"connectorId"`
	Event        string     `json:"event"`
	UserID       *string    `json:"userId"`
	FireCount    int64      `json:"fireCount"`
	LastFiredAt  *time.Time `json:"lastFiredAt"`
	CreatedAt    time.Time  `json:"createdAt"`
}

func newTriggerItem(t store.Trigger) triggerItem {
	it := triggerItem{ID: t.ID, ConnectionID: t.ConnectionID, ConnectorID: t.ConnectorID, Event: t.Event,
		FireCount: t.FireCount, LastFiredAt: t.LastFiredAt, CreatedAt: t.CreatedAt}
	if t.UserID != "" {
		u := t.UserID
		it.UserID = &u
	}
	return it
}

// handleTriggerList is GET /v1/triggers (optionally ?userId=).
func (s *Server) handleTriggerList(w http.ResponseWriter, r *http.Request) error {
	var issues apierr.Issues
	userID := queryText(r.URL.Query(), "userId", 1, 256, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	list, err := s.triggers.List(r.Context(), tenantOf(r).ProjectID, userID)
	if err != nil {
		return err
	}
	items := make([]triggerItem, len(list))
	for i, t := range list {
		items[i] = newTriggerItem(t)
	}
	respond(w, http.StatusOK, items)
	return nil
}

// handleTriggerCreate is POST /v1/triggers.
func (s *Server) handleTriggerCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ConnectionID string         `json:"connectionId"`
		Event        string         `json:"event"`
		Secret       *string        `json:"secret"`
		Config       map[string]any `json:"config"`
	}
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	t, err := s.triggers.Create(r.Context(), tenantOf(r), trigger.CreateRequest{
		ConnectionID: body.ConnectionID, Event: body.Event, Secret: body.Secret, Config: body.Config})
	if err != nil {
		return err
	}
	out := map[string]any{"id": t.ID, "connectorId": t.ConnectorID, "event": t.Event, "fireCount": t.FireCount}
	if t.URL != "" {
		out["url"] = t.URL
	}
	respond(w, http.StatusCreated, out)
	return nil
}

// handleTriggerDelete is DELETE /v1/triggers/:id.
func (s *Server) handleTriggerDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.triggers.Delete(r.Context(), tenantOf(r), id); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]string{"id": id})
	return nil
}

// handleTriggerIngress is POST /api/triggers/:token, called by providers.
// Its answers carry no JSON body; a handshake answer is its text.
func (s *Server) handleTriggerIngress(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, trigger.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return nil
		}
		w.WriteHeader(http.StatusBadRequest)
		return nil
	}
	from, _ := netip.ParseAddrPort(r.RemoteAddr)
	a, err := s.triggers.Ingress(r.Context(), r.PathValue("token"), trigger.Delivery{
		Method: r.Method, URL: s.baseURL + r.URL.RequestURI(), Header: r.Header, Body: body, From: from.Addr()})
	if err != nil {
		if clientGone(r, err) {
			s.log.InfoContext(r.Context(), "client went away during trigger ingress")
		} else {
			s.log.ErrorContext(r.Context(), "trigger ingress failed", "error", err.Error())
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return nil
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	if a.Body != "" {
		w.Header().Set("Content-Type", a.ContentType)
		w.WriteHeader(a.Status)
		_, _ = io.WriteString(w, a.Body)
		return nil
	}
	w.WriteHeader(a.Status)
	return nil
}
