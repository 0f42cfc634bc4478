package execute

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// uploadContent is a file's bytes from the input field, decoded from
// base64 when contentEncoding says so.
func uploadContent(input map[string]any, field string) ([]byte, error) {
	if str(input, "contentEncoding") != "base64" {
		return []byte(str(input, field)), nil
	}
	b, err := base64.StdEncoding.DecodeString(str(input, field))
	if err != nil {
		return nil, invalid(field, "is not valid base64")
	}
	return b, nil
}

// onHost is u moved to host with prefix put before its path: the upload
// endpoints live on their own hosts beside the API's.
func onHost(u *url.URL, host, prefix string) {
	u.Host = host
	u.Path = prefix + u.Path
	u.RawPath = ""
}

// boxUpload sends a new file to Box's upload host as multipart form data:
// the attributes part (name, parent folder) must come before the file part.
func boxUpload(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	content, err := uploadContent(input, "content")
	if err != nil {
		return nil, err
	}
	attrs := map[string]any{"name": str(input, "name"), "parent": map[string]any{"id": str(input, "parent_id")}}
	if v := str(input, "content_modified_at"); v != "" {
		attrs["content_modified_at"] = v
	}
	meta, err := json.Marshal(attrs)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField("attributes", string(meta)); err != nil {
		return nil, err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, str(input, "name")))
	h.Set("Content-Type", "application/octet-stream")
	part, err := mw.CreatePart(h)
	if err != nil {
		return nil, err
	}
	_, _ = part.Write(content)
	if err := mw.Close(); err != nil {
		return nil, err
	}
	onHost(out.URL, "upload.box.com", "/api")
	out.Body = body.Bytes()
	out.Header.Set("Content-Type", mw.FormDataContentType())
	return out, nil
}

// dropboxUpload sends a file's bytes as the raw body to Dropbox's content
// host, the call's arguments as JSON in the Dropbox-API-Arg header.
func dropboxUpload(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	content, err := uploadContent(input, "content")
	if err != nil {
		return nil, err
	}
	arg := map[string]any{"path": str(input, "path")}
	for _, k := range []string{"mode", "autorename", "mute", "strict_conflict", "client_modified"} {
		if v, ok := input[k]; ok {
			arg[k] = v
		}
	}
	header, err := json.Marshal(arg)
	if err != nil {
		return nil, err
	}
	onHost(out.URL, "content.dropboxapi.com", "")
	out.Body = content
	out.Header.Set("Content-Type", "application/octet-stream")
	out.Header.Set("Dropbox-API-Arg", asciiJSON(header))
	return out, nil
}

// asciiJSON escapes every character outside ASCII as \uXXXX: an HTTP
// header carries only ASCII, and Dropbox reads the escapes back.
func asciiJSON(b []byte) string {
	var sb strings.Builder
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			sb.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&sb, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
	}
	return sb.String()
}
