package switchboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// approvalServer is a fake API: execute answers 202 with approval a1
// until the approval has been polled as approved, then 200; GET
// /v1/approvals/a1 answers the statuses in order (the last repeats).
func approvalServer(t *testing.T, statuses ...string) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	polls := 0
	approved := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		approval := func(status string) string {
			return fmt.Sprintf(`{"id":"a1","status":%q,"url":"http://x/v1/approvals/a1","connectorId":"tasks","userId":"u","input":{"n":1},`+
				`"decidedAt":null,"usedAt":null,"decidedBy":"ops","createdAt":"2026-01-01T00:00:00Z","expiresAt":"2999-01-01T00:00:00Z"}`, status)
		}
		switch r.URL.Path {
		case "/v1/tools/execute", "/v1/tools/proxy":
			if approved {
				_, _ = w.Write([]byte(`{"data":{"done":true}}`))
				return
			}
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(`{"data":` + approval("pending") + `}`))
		case "/v1/approvals/a1":
			st := statuses[min(polls, len(statuses)-1)]
			polls++
			approved = st == "approved"
			_, _ = w.Write([]byte(`{"data":` + approval(st) + `}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestExecuteTool_202IsApprovalRequired(t *testing.T) {
	t.Parallel()
	srv, _ := approvalServer(t, "pending")
	var waits []time.Duration
	res, err := recordingClient(srv, &waits).ExecuteTool(context.Background(), ExecuteRequest{ToolID: "x", UserID: "u"})
	var held *ApprovalRequiredError
	if !errors.As(err, &held) || held.Approval.ID != "a1" || held.Approval.Status != ApprovalPending || held.Approval.URL == "" || res != nil {
		t.Fatalf("ExecuteTool on a 202: %s %v, want an *ApprovalRequiredError for a1", res, err)
	}
	_, err = recordingClient(srv, &waits).Proxy(context.Background(), ProxyRequest{ConnectorID: "tasks", UserID: "u", Endpoint: "/x"})
	if !errors.As(err, &held) || held.Approval.ID != "a1" {
		t.Fatalf("Proxy on a 202: %v, want an *ApprovalRequiredError", err)
	}
}

func TestExecuteToolWithApproval_PollsWithBackoffThenRunsTheApprovedCall(t *testing.T) {
	t.Parallel()
	srv, seen := approvalServer(t, "pending", "pending", "approved")
	var waits []time.Duration
	c := recordingClient(srv, &waits)
	res, err := c.ExecuteToolWithApproval(context.Background(), ExecuteRequest{ToolID: "x", UserID: "u"}, WaitOptions{Interval: time.Second, MaxInterval: 10 * time.Second})
	if err != nil || string(res) != `{"done":true}` {
		t.Fatalf("ExecuteToolWithApproval: %s %v", res, err)
	}
	want := []string{"POST /v1/tools/execute", "GET /v1/approvals/a1", "GET /v1/approvals/a1", "GET /v1/approvals/a1", "POST /v1/tools/execute"}
	if !slices.Equal(*seen, want) || !slices.Equal(waits, []time.Duration{time.Second, 1500 * time.Millisecond}) {
		t.Fatalf("requests %v waits %v; want %v and waits 1s, 1.5s", *seen, waits, want)
	}
}

func TestExecuteToolWithApproval_DeniedIsApprovalDenied(t *testing.T) {
	t.Parallel()
	srv, seen := approvalServer(t, "denied")
	var waits []time.Duration
	_, err := recordingClient(srv, &waits).ProxyWithApproval(context.Background(), ProxyRequest{ConnectorID: "tasks", UserID: "u", Endpoint: "/x"}, WaitOptions{})
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Code != CodeApprovalDenied || len(*seen) != 2 {
		t.Fatalf("a denied approval: %v after %v, want 403 APPROVAL_DENIED and no second call", err, *seen)
	}
	srv, _ = approvalServer(t, "expired")
	_, err = recordingClient(srv, &waits).ExecuteToolWithApproval(context.Background(), ExecuteRequest{ToolID: "x"}, WaitOptions{})
	var waitErr *ApprovalWaitError
	if !errors.As(err, &waitErr) || waitErr.Reason != ApprovalExpired {
		t.Fatalf("an expired approval: %v, want *ApprovalWaitError expired", err)
	}
}

func TestWaitForApproval_TimeoutIsBounded(t *testing.T) {
	t.Parallel()
	srv, seen := approvalServer(t, "pending")
	c := New("sb_test", WithBaseURL(srv.URL))
	began := time.Now()
	a, err := c.WaitForApproval(context.Background(), "a1", WaitOptions{Timeout: 300 * time.Millisecond, Interval: 50 * time.Millisecond})
	var waitErr *ApprovalWaitError
	if !errors.As(err, &waitErr) || waitErr.Reason != "timeout" || a.Status != ApprovalPending {
		t.Fatalf("WaitForApproval past its timeout: %+v %v", a, err)
	}
	if took := time.Since(began); took > 2*time.Second || len(*seen) < 3 {
		t.Fatalf("the wait took %v with %d polls", took, len(*seen))
	}
}

func TestClient_RateLimitedRetriesWithinItsBoundAndCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	body := `{"error":{"code":"RATE_LIMITED","message":"the limit of 5 calls per minute is reached; try again in 30 seconds"}}`
	srv, n := scripted(t, []int{429}, http.Header{"Retry-After": {"30"}}, body)
	var waits []time.Duration
	_, err := recordingClient(srv, &waits).ExecuteTool(context.Background(), ExecuteRequest{ToolID: "x"})
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Code != CodeRateLimited || apiErr.Status != 429 || apiErr.RetryAfter != 30*time.Second {
		t.Fatalf("RATE_LIMITED: %#v", err)
	}
	if n.Load() != 3 || !slices.Equal(waits, []time.Duration{30 * time.Second, 30 * time.Second}) {
		t.Fatalf("%d requests, waits %v; want 3 requests (2 retries) and two 30s waits", n.Load(), waits)
	}
	srv, n = scripted(t, []int{429}, http.Header{"Retry-After": {"1200"}}, body)
	waits = nil
	_, err = recordingClient(srv, &waits).ExecuteTool(context.Background(), ExecuteRequest{ToolID: "x"})
	if !errors.As(err, &apiErr) || apiErr.Code != CodeRateLimited || apiErr.RetryAfter != 1200*time.Second || n.Load() != 1 || len(waits) != 0 {
		t.Fatalf("a window 20 minutes away: %v after %d requests and waits %v; want the error at once", err, n.Load(), waits)
	}
}
