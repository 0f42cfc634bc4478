package httpapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// openAPIDoc is the OpenAPI 3.1 description of this API. Tests hold it to
// the router (openapi_test.go): every route is described, every described
// route exists, its examples fit its schemas and live answers fit it too.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPIETag is the document's entity tag, fixed for the life of the binary.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDoc)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// handleOpenAPI is GET /openapi.json: public, cacheable, revalidated by ETag.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", openAPIETag)
	if etagMatches(r.Header.Get("If-None-Match"), openAPIETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(openAPIDoc)))
	if r.Method != http.MethodHead {
		_, _ = w.Write(openAPIDoc)
	}
	return nil
}

// etagMatches reports whether an If-None-Match header names tag (or is *).
func etagMatches(header, tag string) bool {
	for c := range strings.SplitSeq(header, ",") {
		c = strings.TrimPrefix(strings.TrimSpace(c), "W/")
		if c == tag || c == "*" {
			return true
		}
	}
	return false
}
