package execute

import (
	"encoding/base64"
	"net/url"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// graphUploadContent sends a file's bytes as the raw body of Microsoft
// Graph's simple upload (PUT .../{parent}:/{name}:/content): the content
// field, decoded from base64 when contentEncoding says so, with contentType
// (or application/octet-stream) as its type. The mapped query stays.
func graphUploadContent(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	data := []byte(str(input, "content"))
	if str(input, "contentEncoding") == "base64" {
		if data, err = base64.StdEncoding.DecodeString(str(input, "content")); err != nil {
			return nil, invalid("content", "is not valid base64")
		}
	}
	out.Body = data
	ct := str(input, "contentType")
	if ct == "" {
		ct = "application/octet-stream"
	}
	out.Header.Set("Content-Type", ct)
	return out, nil
}
