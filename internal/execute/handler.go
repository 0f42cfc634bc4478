package execute

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"mime"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Handler builds the provider request of a tool whose definition names it,
// for what a request mapping cannot express (a MIME message, a raw upload).
// The executor authenticates and sends what it returns.
type Handler func(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error)

// builtinHandlers are the handlers tool definitions may name. A test checks
// that every handler the catalog names is here.
func builtinHandlers() map[string]Handler {
	return map[string]Handler{
		"gmail_send_message":       gmailMessage(false),
		"gmail_create_draft":       gmailMessage(true),
		"google_drive_upload_file": driveUpload,
		"jira_add_watcher":         jiraAddWatcher,
		"confluence_update_page":   confluenceUpdatePage,
		"aws_s3_put_object":        s3PutObject,
		"aws_s3_create_bucket":     s3CreateBucket,
		"salesforce_record_fields": fieldsBody,
		"posthog_capture_event":    posthogCapture,
		"box_upload_file":          boxUpload,
		"dropbox_upload_file":      dropboxUpload,
		"mixpanel_track_event":     mixpanelImport,
		"graph_upload_content":     graphUploadContent,
		"graph_list_item_fields":   fieldsBody,
	}
}

// withJSONBody replaces a mapped request's body with v as JSON.
func withJSONBody(out *outgoing, v any) (*outgoing, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out.Body = b
	out.Header.Set("Content-Type", "application/json")
	return out, nil
}

func str(input map[string]any, name string) string {
	s, _ := input[name].(string)
	return s
}

func strs(input map[string]any, name string) []string {
	arr, _ := input[name].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func invalid(field, format string, args ...any) error {
	return apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"input", field}, Message: fmt.Sprintf(format, args...)})
}

// mimeMessage builds an RFC 5322 message with a base64 body. Header
// values may not carry line breaks (no header injection).
func mimeMessage(input map[string]any) ([]byte, error) {
	var b bytes.Buffer
	header := func(name, value string) error {
		if strings.ContainsAny(value, "\r\n") {
			return invalid(strings.ToLower(name), "must not contain line breaks")
		}
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", name, value)
		}
		return nil
	}
	contentType := str(input, "contentType")
	if contentType == "" {
		contentType = "text/plain"
	}
	inReplyTo := str(input, "inReplyTo")
	for _, h := range [][2]string{
		{"To", strings.Join(strs(input, "to"), ", ")},
		{"Cc", strings.Join(strs(input, "cc"), ", ")},
		{"Bcc", strings.Join(strs(input, "bcc"), ", ")},
		{"Subject", mime.QEncoding.Encode("utf-8", str(input, "subject"))},
		{"In-Reply-To", inReplyTo},
		{"References", inReplyTo},
		{"MIME-Version", "1.0"},
		{"Content-Type", contentType + "; charset=UTF-8"},
		{"Content-Transfer-Encoding", "base64"},
	} {
		if err := header(h[0], h[1]); err != nil {
			return nil, err
		}
	}
	b.WriteString("\r\n")
	enc := base64.StdEncoding.EncodeToString([]byte(str(input, "body")))
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n")
	return b.Bytes(), nil
}

// gmailMessage sends (or, for a draft, saves) a message built from
// to/cc/bcc/subject/body as the base64url "raw" field Gmail takes.
func gmailMessage(draft bool) Handler {
	return func(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
		out, err := buildRequest(tool, input, base)
		if err != nil {
			return nil, err
		}
		msg, err := mimeMessage(input)
		if err != nil {
			return nil, err
		}
		message := map[string]any{"raw": base64.URLEncoding.EncodeToString(msg)}
		if t := str(input, "threadId"); t != "" {
			message["threadId"] = t
		}
		if draft {
			return withJSONBody(out, map[string]any{"message": message})
		}
		return withJSONBody(out, message)
	}
}

// driveUpload stores metadata and content in one multipart/related upload
// to Drive's upload endpoint (/upload/drive/v3/files?uploadType=multipart).
func driveUpload(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	content := []byte(str(input, "content"))
	if str(input, "contentEncoding") == "base64" {
		if content, err = base64.StdEncoding.DecodeString(str(input, "content")); err != nil {
			return nil, invalid("content", "is not valid base64")
		}
	}
	meta := map[string]any{"name": str(input, "name")}
	for _, k := range []string{"mimeType", "description"} {
		if v := str(input, k); v != "" {
			meta[k] = v
		}
	}
	if p := strs(input, "parents"); len(p) > 0 {
		meta["parents"] = p
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	metaPart, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/json; charset=UTF-8"}})
	_ = json.NewEncoder(metaPart).Encode(meta)
	ct := str(input, "contentType")
	if ct == "" {
		ct = "application/octet-stream"
	}
	dataPart, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {ct}})
	_, _ = dataPart.Write(content)
	_ = mw.Close()

	u := *base
	u.Path = "/upload" + strings.TrimRight(base.Path, "/") + "/files"
	u.RawPath = ""
	u.RawQuery = "uploadType=multipart"
	out.URL = &u
	out.Body = body.Bytes()
	out.Header.Set("Content-Type", "multipart/related; boundary="+mw.Boundary())
	return out, nil
}

// jiraAddWatcher sends the account id as a bare JSON string, the body Jira takes.
func jiraAddWatcher(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	return withJSONBody(out, str(input, "accountId"))
}

// confluenceUpdatePage sends the page id in the body as well as the path.
func confluenceUpdatePage(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"id": str(input, "id")}
	for _, k := range tool.Request.Body {
		if v, ok := input[k]; ok {
			body[k] = v
		}
	}
	return withJSONBody(out, body)
}

// s3PutObject uploads the object's bytes as the raw body.
func s3PutObject(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	data := []byte(str(input, "body"))
	if str(input, "contentEncoding") == "base64" {
		if data, err = base64.StdEncoding.DecodeString(str(input, "body")); err != nil {
			return nil, invalid("body", "is not valid base64")
		}
	}
	out.Body = data
	if out.Header.Get("Content-Type") == "" || out.Header.Get("Content-Type") == "application/json" {
		out.Header.Set("Content-Type", "application/octet-stream")
	}
	if v := str(input, "Content-Type"); v != "" {
		out.Header.Set("Content-Type", v)
	}
	return out, nil
}

// s3CreateBucket sends the XML CreateBucketConfiguration S3 needs outside us-east-1.
func s3CreateBucket(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	out.Body = nil
	out.Header.Del("Content-Type")
	if region := str(input, "LocationConstraint"); region != "" && region != "us-east-1" {
		var b bytes.Buffer
		b.WriteString(`<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>`)
		_ = xml.EscapeText(&b, []byte(region))
		b.WriteString(`</LocationConstraint></CreateBucketConfiguration>`)
		out.Body = b.Bytes()
		out.Header.Set("Content-Type", "application/xml")
	}
	return out, nil
}

// fieldsBody sends the fields object as the whole body: Salesforce's
// record create and update, and Graph's update of a SharePoint list item's
// fields (PATCH .../fields), take the values at the top level.
func fieldsBody(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	fields, _ := input["fields"].(map[string]any)
	if fields == nil {
		fields = map[string]any{}
	}
	return withJSONBody(out, fields)
}
