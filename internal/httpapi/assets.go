package httpapi

import (
	"io/fs"
	"net/http"
	"strconv"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// assetCSP makes every served file inert: no scripts, no plugins, no
// navigation, even when an SVG is opened directly.
const assetCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// logoCacheControl keeps logos for a day (docs/README.md, "Limits").
const logoCacheControl = "public, max-age=86400"

// handleLogo serves logos/<connector_id> from the catalog's logo files.
func (s *Server) handleLogo(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Security-Policy", assetCSP)
	id := r.PathValue("id")
	if _, ok := s.catalog.Connector(id); !ok {
		return apierr.New(apierr.NotFound, "no logo %q", id)
	}
	data, err := fs.ReadFile(s.logos, "logos/"+id+".svg")
	if err != nil {
		return apierr.New(apierr.NotFound, "no logo %q", id)
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", logoCacheControl)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
	return nil
}

// handleAssetMissing answers 404 for asset keys that do not exist, with the
// same inert headers as a found asset.
func (s *Server) handleAssetMissing(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Security-Policy", assetCSP)
	return apierr.New(apierr.NotFound, "no asset at %s", r.URL.Path)
}
