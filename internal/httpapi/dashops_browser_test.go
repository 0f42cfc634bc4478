package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestDashboardOps_HeadlessChromium drives the operations screens in a real
// browser (tests/browser/dashops.mjs): sign in, an API key, a connect link
// used by the user, a tool run with the key, the call in the execution
// log, a webhook with a test event and a retried delivery; axe-core finds
// no serious or critical violation on any screen, and no screen is wider
// than a phone. SWITCHBOARD_BROWSER_SHOTS=<dir> saves screenshots.
func TestDashboardOps_HeadlessChromium(t *testing.T) {
	t.Parallel()
	node, dir := browserTools(t)
	provider := httptest.NewTLSServer(http.HandlerFunc(fakeDelta))
	defer provider.Close()
	srv := httptest.NewServer(nil)
	defer srv.Close()
	f := setupBase(t, sqliteDB, testCatalogFS, provider, srv.URL, srv.URL)
	srv.Config.Handler = f.h
	// The browser keeps the session cookie until its Expires, which the
	// fixture's clock sets: bring the clock to now.
	f.clock.Advance(time.Until(f.clock.Now()) * -1)
	dashOperator(t, f, "owner@example.com", store.RoleOwner)
	if st, _, raw := f.json("POST", "/v1/sessions", `{"userId":"ann","connectors":["delta"],"policy":{"readOnly":true}}`); st != 201 {
		t.Fatalf("session: %d %s", st, raw)
	}
	f.rule(t, `{"decision":"ask","match":{"effect":"destructive"},"description":"a person confirms deletes"}`)

	cmd := exec.Command(node, "dashops.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SB_BASE="+srv.URL, "SB_PROJECT="+f.project.ID, "SB_EMAIL=owner@example.com",
		"SB_PASSWORD="+dashPassword, "SB_API_KEY=delta-secret-key", "SB_HOST="+f.providerHost,
		"SB_SHOTS="+os.Getenv("SWITCHBOARD_BROWSER_SHOTS"))
	// The execution log writes in batches; flush while the browser runs.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				f.srv.execlog.Flush(context.Background())
			}
		}
	}()
	out, err := cmd.Output()
	close(stop)
	if err != nil {
		t.Fatalf("browser run failed: %v\n%s", err, out)
	}
	var seen struct {
		Error                                                string
		Axe                                                  map[string][]string
		Overflow                                             map[string]string
		KeyShown, LinkShown, SecretShown                     bool
		Connected, UsersText, LogRow, LogDetail, LogFiltered string
		TestFlash, RetryFlash, DeliveryRow                   string
		ToolStatus                                           int
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("browser output: %v\n%s", err, out)
	}
	var raw map[string]any
	_ = json.Unmarshal(out, &raw)
	str := func(k string) string { s, _ := raw[k].(string); return s }
	if seen.Error != "" {
		t.Fatalf("the browser run stopped: %s\n%s", seen.Error, out)
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"the empty log says what to do", strings.Contains(str("empty_logs"), "No calls yet")},
		{"the empty webhooks say what to do", strings.Contains(str("empty_webhooks"), "No webhooks yet")},
		{"the empty users screen says what to do", strings.Contains(str("empty_users"), "Search for a user")},
		{"the empty triggers say what to do", strings.Contains(str("empty_triggers"), "No triggers")},
		{"the empty approvals say what to do", strings.Contains(str("empty_approvals"), "Nothing waits for a decision")},
		{"the empty own connectors say what to do", strings.Contains(str("empty_connectors"), "No own connectors")},
		{"the key is shown once", seen.KeyShown},
		{"the link is shown", seen.LinkShown},
		{"the account is connected through the link", strings.Contains(seen.Connected, "Delta Tasks is connected")},
		{"ann's account is on the users screen", strings.Contains(seen.UsersText, "delta") && strings.Contains(seen.UsersText, "active")},
		{"the tool ran with the dashboard's key", seen.ToolStatus == 200},
		{"the call is in the log", strings.Contains(seen.LogRow, "delta_create_task") && strings.Contains(seen.LogRow, "ann") && strings.Contains(seen.LogRow, "ok")},
		{"the record's detail", strings.Contains(seen.LogDetail, "delta_create_task") && strings.Contains(seen.LogDetail, "Record ID")},
		{"a filter without match says so", strings.Contains(seen.LogFiltered, "No calls match")},
		{"the webhook secret is shown once", seen.SecretShown},
		{"the test event is queued", strings.Contains(seen.TestFlash, "Test event queued")},
		{"the delivery is retried", strings.Contains(seen.RetryFlash, "queued again") && strings.Contains(seen.DeliveryRow, "webhook.test")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s; the browser saw: %s", c.what, out)
		}
	}
	if len(seen.Axe) < 15 {
		t.Errorf("axe ran on %d screens: %v", len(seen.Axe), seen.Axe)
	}
	for screen, v := range seen.Axe {
		if len(v) > 0 {
			t.Errorf("axe-core on %s: %v", screen, v)
		}
	}
	for screen, wide := range seen.Overflow {
		if wide != "" {
			t.Errorf("%s is wider than a phone: %s", screen, wide)
		}
	}
}
