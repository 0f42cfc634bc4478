package connect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The rules of a project's Connect page settings and its uploads, shared
// by `admin project set`, `admin asset upload` and the dashboard.

var accentPattern = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// CheckAccent reports what is wrong with an accent colour ("" is none).
func CheckAccent(accent string) error {
	if accent != "" && !accentPattern.MatchString(accent) {
		return fmt.Errorf("accent %q must be a colour such as #4f46e5", accent)
	}
	return nil
}

// ParseRedirectURLs reads the URLs connect links may send users back to
// (blank entries skipped); each must be an absolute http(s) URL.
func ParseRedirectURLs(list []string) ([]string, error) {
	var urls []string
	for _, u := range list {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		parsed, err := url.Parse(u)
		if err != nil || (parsed.Scheme != "https" && parsed.Scheme != "http") || parsed.Host == "" {
			return nil, fmt.Errorf("%q is not an absolute http(s) URL", u)
		}
		urls = append(urls, u)
	}
	return urls, nil
}

// uploadTypes are the content types an upload may be served as; anything
// else is refused rather than served as something a browser might run.
var uploadTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".ico": "image/x-icon",
}

// MaxUpload is the largest upload (a logo), in bytes.
const MaxUpload = 2 << 20

// NewAsset checks an uploaded image (by its file name's extension and its
// content) and returns it as the asset to store, under its
// content-addressed key projects/<project>/<sha256>.<ext>.
func NewAsset(projectID, filename string, data []byte) (store.Asset, error) {
	ext := strings.ToLower(filepath.Ext(filename))
	ct, ok := uploadTypes[ext]
	if !ok {
		return store.Asset{}, fmt.Errorf("%s: uploads are images (png, jpg, gif, webp, svg, ico)", filename)
	}
	if len(data) > MaxUpload {
		return store.Asset{}, fmt.Errorf("%s is larger than 2 MiB", filename)
	}
	if ext != ".svg" && ext != ".ico" && !strings.HasPrefix(http.DetectContentType(data), "image/") {
		return store.Asset{}, fmt.Errorf("%s is not an image", filename)
	}
	sum := sha256.Sum256(data)
	return store.Asset{Key: "projects/" + projectID + "/" + hex.EncodeToString(sum[:]) + ext, ProjectID: projectID, ContentType: ct, Data: data}, nil
}
