package httpapi

import (
	"bytes"
	"encoding/json"
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
	writeJSON(w, status, dataBody{Data: data})
}

// pageBody is a page of a paginated list (SPEC.md 4.1).
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

// fail writes err as the error envelope. An *apierr.Error is shown as it
// is; anything else is logged with its detail and shown as INTERNAL_ERROR,
// so no internal detail (or secret) reaches the caller.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apierr.As(err)
	if !ok {
		s.log.ErrorContext(r.Context(), "request failed", "error", err.Error())
		e = apierr.New(apierr.InternalError, "internal error; the server log has the details under this request's id")
	}
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	writeJSON(w, e.HTTPStatus(), e.Envelope())
}
