package execute

import (
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// TestMicrosoftAppOnly_OneDriveAndSharePoint: an app-only OneDrive account
// works on its user's drive in place of /me; an app-only SharePoint
// account needs no user, and the tool that only a signed-in user can run
// is refused before any provider call.
func TestMicrosoftAppOnly_OneDriveAndSharePoint(t *testing.T) {
	t.Parallel()
	tenant := "8c3d5e4f-0000-4000-8000-123456789abc"
	e, g := newGrantEnv(t, "/"+tenant+"/oauth2/v2.0/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"token_type":"Bearer","expires_in":3599,"access_token":"graph-app"}`)
	})
	if _, err := e.connectAs("onedrive", map[string]any{"type": "oauth2_client_credentials", "clientId": "app-1",
		"clientSecret": "app-secret", "tenantId": tenant, "userId": "ann@contoso.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("onedrive_get_item", `{"itemId":"01ABC"}`); err != nil {
		t.Fatal(err)
	}
	if tr := g.lastToken(); tr.Form.Get("grant_type") != "client_credentials" || tr.Form.Get("scope") != "https://graph.microsoft.com/.default" {
		t.Fatalf("token request: %+v", tr)
	}
	if c := g.lastCall(); c.Host != "graph.microsoft.com" || c.Path != "/v1.0/users/ann@contoso.com/drive/items/01ABC" ||
		c.Header.Get("Authorization") != "Bearer graph-app" {
		t.Fatalf("tool call: %+v", c)
	}

	if _, err := e.connectAs("sharepoint", map[string]any{"type": "oauth2_client_credentials", "clientId": "app-1",
		"clientSecret": "app-secret", "tenantId": tenant}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("sharepoint_get_site", `{"siteId":"root"}`); err != nil {
		t.Fatal(err)
	}
	if c := g.lastCall(); c.Path != "/v1.0/sites/root" || c.Header.Get("Authorization") != "Bearer graph-app" {
		t.Fatalf("tool call: %+v", c)
	}
	_, calls := g.counts()
	_, err := e.run("sharepoint_list_followed_sites", `{}`)
	wantCode(t, err, apierr.ActionDisabled, 403)
	if _, after := g.counts(); after != calls {
		t.Fatal("an excluded tool reached the provider")
	}
}
