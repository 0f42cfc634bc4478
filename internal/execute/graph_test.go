package execute

import (
	"net/url"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

func TestGraphUpload_RawBytesToTheContentPath(t *testing.T) {
	t.Parallel()
	tool := builtinTool(t, "onedrive_upload_file")
	base, _ := url.Parse("https://graph.microsoft.com/v1.0")

	out, err := graphUploadContent(tool, map[string]any{"parentId": "root", "fileName": "q 3.bin", "content": "AAH/",
		"contentEncoding": "base64", "conflictBehavior": "rename"}, base)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.URL.EscapedPath(); got != "/v1.0/me/drive/items/root:/q%203.bin:/content" {
		t.Errorf("path %s", got)
	}
	if got := out.URL.Query().Get("@microsoft.graph.conflictBehavior"); got != "rename" {
		t.Errorf("conflict behaviour %q in %s", got, out.URL.RawQuery)
	}
	if string(out.Body) != "\x00\x01\xff" || out.Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("body %q, type %q", out.Body, out.Header.Get("Content-Type"))
	}

	out, err = graphUploadContent(tool, map[string]any{"parentId": "F1", "fileName": "a.csv", "content": "a,b\n", "contentType": "text/csv"}, base)
	if err != nil || string(out.Body) != "a,b\n" || out.Header.Get("Content-Type") != "text/csv" || out.URL.RawQuery != "" {
		t.Fatalf("text upload: %v %q %v %s", err, out.Body, out.Header, out.URL)
	}

	_, err = graphUploadContent(tool, map[string]any{"parentId": "F1", "fileName": "a.bin", "content": "not base64!", "contentEncoding": "base64"}, base)
	if ae, ok := apierr.As(err); !ok || ae.Code != apierr.ValidationError {
		t.Fatalf("bad base64: %v", err)
	}
}

func TestGraphListItemFields_ColumnValuesAreTheWholeBody(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://graph.microsoft.com/v1.0")
	out, err := fieldsBody(builtinTool(t, "sharepoint_update_list_item"),
		map[string]any{"siteId": "s1", "listId": "Equipment", "itemId": "7", "fields": map[string]any{"Status": "Done"}}, base)
	if err != nil || string(out.Body) != `{"Status":"Done"}` || out.URL.Path != "/v1.0/sites/s1/lists/Equipment/items/7/fields" {
		t.Fatalf("%v %s %s", err, out.Body, out.URL)
	}
}
