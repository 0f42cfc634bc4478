package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestStatus_EveryCodeOfSpecSection7(t *testing.T) {
	t.Parallel()
	want := map[Code]int{
		ValidationError: 400, MissingConnection: 400, ReauthRequired: 400, ExecutionError: 400,
		Unauthorized: 401, ActionDisabled: 403, ForbiddenEndpoint: 403, Forbidden: 403, PolicyDenied: 403, ApprovalDenied: 403,
		NotFound: 404, ToolNotFound: 404, ConnectorNotFound: 404, SessionNotFound: 404, ConnectionNotFound: 404,
		AmbiguousConnection: 409, Conflict: 409, NameTaken: 409, ConnectorUnavailable: 409,
		LinkUsed: 410, LinkExpired: 410,
		InternalError: 500, UpstreamError: 502, CredentialUnavailable: 503, RateLimited: 429,
	}
	if len(want) != len(statuses) {
		t.Fatalf("table has %d codes, test knows %d", len(statuses), len(want))
	}
	for code, status := range want {
		if got := code.Status(); got != status {
			t.Errorf("%s: status %d, want %d", code, got, status)
		}
	}
	if got := Code("NOPE").Status(); got != http.StatusInternalServerError {
		t.Errorf("unknown code: %d", got)
	}
}

func TestError_StatusOverride(t *testing.T) {
	t.Parallel()
	e := New(ExecutionError, "rotation failed").WithStatus(500)
	if e.HTTPStatus() != 500 {
		t.Fatalf("got %d", e.HTTPStatus())
	}
	wrapped := fmt.Errorf("outer: %w", e)
	got, ok := As(wrapped)
	if !ok || got != e {
		t.Fatal("As did not find the wrapped error")
	}
	if _, ok := As(errors.New("plain")); ok {
		t.Fatal("As found an error in a plain error")
	}
}

func TestIssues_ListsEveryProblem(t *testing.T) {
	t.Parallel()
	var is Issues
	if is.Err() != nil {
		t.Fatal("empty issues gave an error")
	}
	is.Add(IssueRequired, []any{"userId"}, "is required")
	is.Add(IssueTooBig, []any{"actions", 3}, "must be at most %d characters", 64)
	err := is.Err()
	e, ok := As(err)
	if !ok || e.Code != ValidationError || len(e.Issues) != 2 {
		t.Fatalf("got %#v", err)
	}
	b, _ := json.Marshal(e.Envelope())
	want := `{"error":{"code":"VALIDATION_ERROR","message":"request is invalid: userId: is required; actions[3]: must be at most 64 characters","issues":[{"code":"required","path":["userId"],"message":"is required"},{"code":"too_big","path":["actions",3],"message":"must be at most 64 characters"}]}}`
	if string(b) != want {
		t.Fatalf("envelope\n got %s\nwant %s", b, want)
	}
}

func TestIssue_EmptyPathEncodesAsArray(t *testing.T) {
	t.Parallel()
	var is Issues
	is.Add(IssueInvalidJSON, nil, "body is not a JSON object")
	b, _ := json.Marshal(is[0])
	if string(b) != `{"code":"invalid_json","path":[],"message":"body is not a JSON object"}` {
		t.Fatalf("got %s", b)
	}
}
