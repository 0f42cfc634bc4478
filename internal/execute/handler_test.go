package execute

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"strings"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

func builtinTool(t *testing.T, id string) *catalog.Tool {
	t.Helper()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := cat.Tool(id)
	if !ok {
		t.Fatalf("no tool %s", id)
	}
	return tool
}

func TestHandlers_EveryCatalogHandlerIsRegistered(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	hs := builtinHandlers()
	used := map[string]bool{}
	for _, tool := range cat.Tools() {
		if tool.Handler == "" {
			continue
		}
		used[tool.Handler] = true
		if _, ok := hs[tool.Handler]; !ok {
			t.Errorf("%s names handler %s, which is not registered", tool.ID, tool.Handler)
		}
	}
	for name := range hs {
		if !used[name] {
			t.Errorf("handler %s is registered but no tool uses it", name)
		}
	}
}

func TestGmailSend_BuildsMIMEAndRefusesHeaderInjection(t *testing.T) {
	t.Parallel()
	tool := builtinTool(t, "gmail_send_message")
	base, _ := url.Parse("https://gmail.googleapis.com/gmail/v1")
	input := map[string]any{"to": []any{"a@example.com", "b@example.com"}, "subject": "Grüße", "body": "hello there", "threadId": "t1"}
	out, err := builtinHandlers()["gmail_send_message"](tool, input, base)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Raw, ThreadID string }
	_ = json.Unmarshal(out.Body, &body)
	msg, err := base64.URLEncoding.DecodeString(body.Raw)
	if err != nil || body.ThreadID != "t1" || out.URL.Path != "/gmail/v1/users/me/messages/send" {
		t.Fatalf("body %s, url %s", out.Body, out.URL)
	}
	text := string(msg)
	for _, want := range []string{"To: a@example.com, b@example.com\r\n", "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n",
		"Content-Type: text/plain; charset=UTF-8\r\n", base64.StdEncoding.EncodeToString([]byte("hello there"))} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
	input["inReplyTo"] = "<x@y>\r\nBcc: victim@example.com"
	_, err = builtinHandlers()["gmail_send_message"](tool, input, base)
	if e, ok := apierr.As(err); !ok || e.Code != apierr.ValidationError {
		t.Fatalf("header injection: %v", err)
	}
}

func TestDriveUpload_MultipartToUploadEndpoint(t *testing.T) {
	t.Parallel()
	tool := builtinTool(t, "google_drive_upload_file")
	base, _ := url.Parse("https://www.googleapis.com/drive/v3")
	out, err := driveUpload(tool, map[string]any{"name": "r.csv", "content": "YSxiCg==", "contentEncoding": "base64", "contentType": "text/csv"}, base)
	if err != nil {
		t.Fatal(err)
	}
	if out.URL.String() != "https://www.googleapis.com/upload/drive/v3/files?uploadType=multipart" ||
		!strings.HasPrefix(out.Header.Get("Content-Type"), "multipart/related; boundary=") ||
		!strings.Contains(string(out.Body), `"name":"r.csv"`) || !strings.Contains(string(out.Body), "a,b\n") {
		t.Fatalf("%s %v\n%s", out.URL, out.Header, out.Body)
	}
}

func TestS3_PutObjectRawBodyAndCreateBucketXML(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://s3.eu-west-1.amazonaws.com")
	out, err := s3PutObject(builtinTool(t, "aws_s3_put_object"), map[string]any{"bucket": "b", "key": "dir/f.txt", "body": "hi", "Content-Type": "text/plain"}, base)
	if err != nil || string(out.Body) != "hi" || out.Header.Get("Content-Type") != "text/plain" || out.URL.EscapedPath() != "/b/dir/f.txt" {
		t.Fatalf("put: %v %q %v %s", err, out.Body, out.Header, out.URL)
	}
	out, err = s3CreateBucket(builtinTool(t, "aws_s3_create_bucket"), map[string]any{"bucket": "b", "LocationConstraint": "eu-west-1"}, base)
	if err != nil || !strings.Contains(string(out.Body), "<LocationConstraint>eu-west-1</LocationConstraint>") {
		t.Fatalf("create: %v %s", err, out.Body)
	}
	out, _ = s3CreateBucket(builtinTool(t, "aws_s3_create_bucket"), map[string]any{"bucket": "b"}, base)
	if out.Body != nil {
		t.Fatalf("us-east-1 bucket has a body: %s", out.Body)
	}
}

func TestJiraWatcherAndSalesforceFieldsBodies(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://acme.atlassian.net/rest/api/3")
	out, err := jiraAddWatcher(builtinTool(t, "jira_add_watcher"), map[string]any{"issueIdOrKey": "ENG-1", "accountId": "abc"}, base)
	if err != nil || string(out.Body) != `"abc"` {
		t.Fatalf("jira: %v %s", err, out.Body)
	}
	sbase, _ := url.Parse("https://acme.my.salesforce.com/services/data/v60.0")
	out, err = fieldsBody(builtinTool(t, "salesforce_update_record"),
		map[string]any{"sobject": "Account", "id": "001", "fields": map[string]any{"Name": "Acme"}}, sbase)
	if err != nil || string(out.Body) != `{"Name":"Acme"}` || out.URL.Path != "/services/data/v60.0/sobjects/Account/001" {
		t.Fatalf("salesforce: %v %s %s", err, out.Body, out.URL)
	}
}

func TestBoxUpload_MultipartAttributesBeforeFileOnUploadHost(t *testing.T) {
	t.Parallel()
	tool := builtinTool(t, "box_upload_file")
	base, _ := url.Parse("https://api.box.com/2.0")
	out, err := boxUpload(tool, map[string]any{"name": "r.csv", "parent_id": "42", "content": "YSxiCg==", "contentEncoding": "base64", "fields": "id,name"}, base)
	if err != nil {
		t.Fatal(err)
	}
	if out.URL.String() != "https://upload.box.com/api/2.0/files/content?fields=id%2Cname" {
		t.Fatalf("url %s", out.URL)
	}
	_, params, _ := mime.ParseMediaType(out.Header.Get("Content-Type"))
	mr := multipart.NewReader(bytes.NewReader(out.Body), params["boundary"])
	var names, bodies []string
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		names, bodies = append(names, p.FormName()), append(bodies, string(b))
	}
	if len(names) != 2 || names[0] != "attributes" || names[1] != "file" ||
		bodies[0] != `{"name":"r.csv","parent":{"id":"42"}}` || bodies[1] != "a,b\n" {
		t.Fatalf("parts %q %q", names, bodies)
	}
	_, err = boxUpload(tool, map[string]any{"name": "r", "parent_id": "0", "content": "!!", "contentEncoding": "base64"}, base)
	if e, ok := apierr.As(err); !ok || e.Code != apierr.ValidationError {
		t.Fatalf("bad base64: %v", err)
	}
}

func TestDropboxUpload_RawBodyAndASCIIArgHeaderOnContentHost(t *testing.T) {
	t.Parallel()
	tool := builtinTool(t, "dropbox_upload_file")
	base, _ := url.Parse("https://api.dropboxapi.com/2")
	out, err := dropboxUpload(tool, map[string]any{"path": "/Berichte/Grüße 😀.txt", "content": "hallo", "mode": "overwrite", "mute": true}, base)
	if err != nil {
		t.Fatal(err)
	}
	if out.URL.String() != "https://content.dropboxapi.com/2/files/upload" || string(out.Body) != "hallo" ||
		out.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("%s %v %q", out.URL, out.Header, out.Body)
	}
	h := out.Header.Get("Dropbox-API-Arg")
	for _, r := range h {
		if r >= 0x80 {
			t.Fatalf("header is not ASCII: %s", h)
		}
	}
	var arg map[string]any
	if err := json.Unmarshal([]byte(h), &arg); err != nil || arg["path"] != "/Berichte/Grüße 😀.txt" || arg["mode"] != "overwrite" || arg["mute"] != true || len(arg) != 3 {
		t.Fatalf("arg %s: %v", h, err)
	}
}

func TestMixpanelImport_OneEventToTheResidencyIngestionHost(t *testing.T) {
	t.Parallel()
	tool := builtinTool(t, "mixpanel_track_event")
	base, _ := url.Parse("https://eu.mixpanel.com/api")
	input := map[string]any{"project_id": float64(42), "event": "Signed Up", "distinct_id": "u-7", "time": float64(1790000000000),
		"properties": map[string]any{"plan": "pro", "distinct_id": "ignored"}}
	out, err := mixpanelImport(tool, input, base)
	if err != nil {
		t.Fatal(err)
	}
	if out.URL.Host != "api-eu.mixpanel.com" || out.URL.Path != "/import" ||
		out.URL.Query().Get("project_id") != "42" || out.URL.Query().Get("strict") != "1" {
		t.Fatalf("url %s", out.URL)
	}
	var events []struct {
		Event      string         `json:"event"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(out.Body, &events); err != nil || len(events) != 1 {
		t.Fatalf("body %s: %v", out.Body, err)
	}
	p := events[0].Properties
	id, _ := p["$insert_id"].(string)
	if events[0].Event != "Signed Up" || p["distinct_id"] != "u-7" || p["time"] != float64(1790000000000) || p["plan"] != "pro" || len(id) != 32 {
		t.Fatalf("event %s", out.Body)
	}
	again, _ := mixpanelImport(tool, input, base)
	if string(again.Body) != string(out.Body) {
		t.Fatalf("the same event got another insert id:\n%s\n%s", out.Body, again.Body)
	}
	input["insert_id"] = "order-1001"
	out, _ = mixpanelImport(tool, input, base)
	if !strings.Contains(string(out.Body), `"$insert_id":"order-1001"`) {
		t.Fatalf("given insert id not kept: %s", out.Body)
	}
	other, _ := url.Parse("https://mixpanel.example/api")
	if _, err := mixpanelImport(tool, input, other); err == nil {
		t.Fatal("an unknown residency host was accepted")
	}
}
