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

// handleReady answers whether this process should take traffic: 200
// {"data":{"status":"ready"}} when the database answers and every
// migration this build knows is applied, 503 with status "unavailable"
// and what is wrong otherwise. /health stays the cheap liveness check.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	states, err := s.store.MigrationStatus(ctx)
	if err != nil {
		s.log.ErrorContext(ctx, "readiness check: database does not answer", "error", err.Error())
		respond(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
		return nil
	}
	for _, m := range states {
		if m.AppliedAt == nil {
			s.log.WarnContext(ctx, "readiness check: migrations are pending", "version", m.Version)
			respond(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "migrations": "pending"})
			return nil
		}
	}
	respond(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}
