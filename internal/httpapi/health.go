package httpapi

import (
	"context"
	"net/http"
	"time"
)

// handleHealth answers 200 {"data":{"status":"ok"}} when the database
// answers, and 503 with status "unavailable" when it does not.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.ErrorContext(ctx, "health check: database does not answer", "error", err.Error())
		respond(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
		return nil
	}
	respond(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}
