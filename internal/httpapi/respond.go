package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// writeJSON writes v as the JSON body of a response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a programming error (an unencodable value) lands here.
		http.Error(w, `{"error":{"code":"INTERNAL_ERROR","message":"response could not be encoded"}}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// dataBody is the success envelope { "data": … }.
type dataBody struct {
	Data any `json:"data"`
}

// respond writes { "data": data } with status.
func respond(w http.ResponseWriter, status int, data any) {
	if raw, ok := data.(json.RawMessage); ok && len(raw) > 0 {
		// A provider's JSON (execute and proxy pass it through validated):
		// written as it is, not re-validated and compacted by the encoder.
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(raw)+len(`{"data":}`)+1))
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"data":`)
		_, _ = w.Write(raw)
		_, _ = io.WriteString(w, "}\n")
		return
	}
	writeJSON(w, status, dataBody{Data: data})
}

// pageBody is a page of a paginated list (docs/README.md, "Conventions of the API").
type pageBody struct {
	Data       any     `json:"data"`
	NextCursor *string `json:"nextCursor"`
	Facets     any     `json:"facets,omitempty"`
}

// respondPage writes one page of a list.
func respondPage(w http.ResponseWriter, data any, next string, facets any) {
	body := pageBody{Data: data, Facets: facets}
	if next != "" {
		body.NextCursor = &next
	}
	writeJSON(w, http.StatusOK, body)
}

// clientGone reports whether err comes from the client closing the request
// (its context canceled), rather than from a fault of the server.
func clientGone(r *http.Request, err error) bool {
	return errors.Is(err, context.Canceled) && r.Context().Err() != nil
}

// fail writes err as the error envelope. An *apierr.Error is shown as it
// is; anything else is logged with its detail and shown as INTERNAL_ERROR,
// so no internal detail (or secret) reaches the caller.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apierr.As(err)
	if !ok {
		if clientGone(r, err) {
			// Nobody reads the answer; this is the client's doing, not ours.
			s.log.InfoContext(r.Context(), "client went away before the answer", "error", err.Error())
		} else {
			s.log.ErrorContext(r.Context(), "request failed", "error", err.Error())
		}
		e = apierr.New(apierr.InternalError, "internal error; the server log has the details under this request's id")
	}
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	writeJSON(w, e.HTTPStatus(), e.Envelope())
}
