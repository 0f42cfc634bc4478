package switchboard

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// scripted is a test server answering each request with the next of
// statuses (the last repeats), recording the methods it saw.
func scripted(t *testing.T, statuses []int, header http.Header, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sb_test" {
			t.Errorf("Authorization %q", r.Header.Get("Authorization"))
		}
		i := int(n.Add(1)) - 1
		st := statuses[min(i, len(statuses)-1)]
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		if st < 300 {
			_, _ = w.Write([]byte(`{"data":{"id":"t1","name":"ok","category":"crm","authMethods":[]}}`))
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// recordingClient is a client on srv whose waits are recorded, not slept.
func recordingClient(srv *httptest.Server, waits *[]time.Duration) *Client {
	c := New("sb_test", WithBaseURL(srv.URL+"/"), WithMaxRetries(2))
	c.sleepFunc = func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	}
	return c
}

func TestClient_429HonoursRetryAfterThenSucceeds(t *testing.T) {
	t.Parallel()
	srv, n := scripted(t, []int{429, 429, 200}, http.Header{"Retry-After": {"3"}}, `{"error":{"code":"UPSTREAM_ERROR","message":"slow down"}}`)
	var waits []time.Duration
	got, err := recordingClient(srv, &waits).GetConnector(context.Background(), "t1")
	if err != nil || got.ID != "t1" {
		t.Fatalf("GetConnector: %+v %v", got, err)
	}
	if n.Load() != 3 || !slices.Equal(waits, []time.Duration{3 * time.Second, 3 * time.Second}) {
		t.Fatalf("%d requests, waits %v; want 3 and two 3s waits", n.Load(), waits)
	}
}

func TestClient_GivesUpAfterMaxRetriesWithTheLastError(t *testing.T) {
	t.Parallel()
	srv, n := scripted(t, []int{503}, nil, `{"error":{"code":"CREDENTIAL_UNAVAILABLE","message":"later"}}`)
	var waits []time.Duration
	_, err := recordingClient(srv, &waits).CreateSession(context.Background(), SessionRequest{UserID: "u"})
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != CodeCredentialUnavailable {
		t.Fatalf("err %v", err)
	}
	if n.Load() != 3 || len(waits) != 2 {
		t.Fatalf("%d requests, %d waits; want 3 and 2", n.Load(), len(waits))
	}
	// Without Retry-After, the waits back off within their bounds.
	if waits[0] < 250*time.Millisecond || waits[0] > 500*time.Millisecond || waits[1] < 500*time.Millisecond || waits[1] > time.Second {
		t.Fatalf("backoff waits %v", waits)
	}
}

func TestClient_500RetriesReadsButNotWrites(t *testing.T) {
	t.Parallel()
	body := `{"error":{"code":"INTERNAL_ERROR","message":"boom"}}`
	srv, n := scripted(t, []int{500, 200}, nil, body)
	var waits []time.Duration
	if _, err := recordingClient(srv, &waits).GetConnector(context.Background(), "t1"); err != nil || n.Load() != 2 {
		t.Fatalf("GET after a 500: %v, %d requests", err, n.Load())
	}
	srv, n = scripted(t, []int{502, 200}, nil, `{"error":{"code":"UPSTREAM_ERROR","message":"provider failed","upstream":{"status":500,"body":"x"}}}`)
	_, err := recordingClient(srv, &waits).ExecuteTool(context.Background(), ExecuteRequest{ToolID: "x"})
	if !IsCode(err, CodeUpstreamError) || n.Load() != 1 {
		t.Fatalf("POST after a 502: %v, %d requests; want UPSTREAM_ERROR and no retry", err, n.Load())
	}
	var apiErr *Error
	if errors.As(err, &apiErr); apiErr.Upstream == nil || apiErr.Upstream.Status != 500 {
		t.Fatalf("upstream detail lost: %+v", apiErr)
	}
}

func TestClient_ProviderRateLimitIsRetriedUnlessTheWaitIsTooLong(t *testing.T) {
	t.Parallel()
	limited := `{"error":{"code":"EXECUTION_ERROR","message":"rate limited","upstream":{"status":429,"body":""}}}`
	srv, n := scripted(t, []int{400, 200}, http.Header{"Retry-After": {"4"}}, limited)
	var waits []time.Duration
	if _, err := recordingClient(srv, &waits).ExecuteTool(context.Background(), ExecuteRequest{ToolID: "x"}); err != nil || n.Load() != 2 {
		t.Fatalf("after a provider 429: %v, %d requests", err, n.Load())
	}
	if !slices.Equal(waits, []time.Duration{4 * time.Second}) {
		t.Fatalf("waits %v, want the provider's 4s", waits)
	}
	srv, n = scripted(t, []int{400, 200}, http.Header{"Retry-After": {"3600"}}, limited)
	_, err := recordingClient(srv, &waits).ExecuteTool(context.Background(), ExecuteRequest{ToolID: "x"})
	if !IsCode(err, CodeExecutionError) || n.Load() != 1 {
		t.Fatalf("an hour's Retry-After: %v, %d requests; want the error at once", err, n.Load())
	}
}

func TestClient_ValidationErrorCarriesIssuesAndNoRetry(t *testing.T) {
	t.Parallel()
	srv, n := scripted(t, []int{400}, nil, `{"error":{"code":"VALIDATION_ERROR","message":"bad","issues":[{"code":"too_small","path":["ttlMinutes"],"message":"at least 5"}]}}`)
	var waits []time.Duration
	_, err := recordingClient(srv, &waits).CreateSession(context.Background(), SessionRequest{UserID: "u", TTLMinutes: 1})
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Code != CodeValidationError || len(apiErr.Issues) != 1 || apiErr.Issues[0].Path[0] != "ttlMinutes" {
		t.Fatalf("err %#v", err)
	}
	if n.Load() != 1 {
		t.Fatalf("%d requests for a 400", n.Load())
	}
}

func TestClient_AnswerWithoutEnvelopeKeepsStatus(t *testing.T) {
	t.Parallel()
	srv, _ := scripted(t, []int{404}, nil, `<html>not here</html>`)
	var waits []time.Duration
	_, err := recordingClient(srv, &waits).GetConnector(context.Background(), "t1")
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Code != "" {
		t.Fatalf("err %#v", err)
	}
}

func TestRetryAfter_SecondsAndDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"7":                             7 * time.Second,
		"Mon, 04 May 2026 09:00:10 GMT": 10 * time.Second,
		"Mon, 04 May 2026 08:00:00 GMT": 0,
	} {
		if got, ok := retryAfter(h, now); !ok || got != want {
			t.Errorf("Retry-After %q: %v %v, want %v", h, got, ok, want)
		}
	}
	if _, ok := retryAfter("soon", now); ok {
		t.Error("Retry-After soon was read")
	}
}

// TestCodes_EqualTheOpenAPIErrorCodes keeps the Code constants equal to
// the ErrorCode enum of the API description.
func TestCodes_EqualTheOpenAPIErrorCodes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../../internal/httpapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas struct {
				ErrorCode struct{ Enum []string } `json:"ErrorCode"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	file, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(file, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" {
				s, _ := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
				declared = append(declared, s)
			}
		}
		return true
	})
	want := doc.Components.Schemas.ErrorCode.Enum
	slices.Sort(want)
	slices.Sort(declared)
	if len(want) < 20 || !slices.Equal(want, declared) {
		t.Fatalf("Code constants %v\nwant the ErrorCode enum %v", declared, want)
	}
}

func TestOpenAITools_FunctionShape(t *testing.T) {
	t.Parallel()
	strict := true
	tools := []SessionTool{{Kind: "meta", Name: "switchboard_execute", Description: "Run", InputSchema: json.RawMessage(`{"type":"object"}`), Strict: &strict}}
	raw, _ := json.Marshal(OpenAITools(tools))
	want := `[{"type":"function","function":{"name":"switchboard_execute","description":"Run","parameters":{"type":"object"},"strict":true}}]`
	if string(raw) != want {
		t.Fatalf("%s\nwant %s", raw, want)
	}
}
