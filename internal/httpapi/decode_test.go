package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

type sampleBody struct {
	UserID  string          `json:"userId"`
	TTL     *int            `json:"ttlMinutes"`
	Actions []string        `json:"actions"`
	Global  bool            `json:"global"`
	Input   json.RawMessage `json:"input"`
}

func decodeString(t *testing.T, s *Server, body string) (sampleBody, apierr.Issues) {
	t.Helper()
	var b sampleBody
	rec := httptest.NewRecorder()
	issues := s.decodeBody(rec, httptest.NewRequest("POST", "/", strings.NewReader(body)), &b)
	return b, issues
}

func TestDecodeBody_InvalidJSONReadsAsEmptyObject(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	for _, body := range []string{"", "{", "not json", "[1,2]", `"str"`, "null"} {
		b, issues := decodeString(t, s, body)
		if len(issues) != 0 || !reflect.DeepEqual(b, sampleBody{}) {
			t.Errorf("%q: %+v %v", body, b, issues)
		}
	}
}

func TestDecodeBody_EveryWrongTypeReported(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	b, issues := decodeString(t, s, `{"userId": 5, "ttlMinutes": "x", "actions": [1], "global": true, "input": {"a":1}, "UserID": "case"}`)
	var paths []string
	for _, is := range issues {
		if is.Code != apierr.IssueInvalidType {
			t.Errorf("issue code %s", is.Code)
		}
		paths = append(paths, apierr.PathString(is.Path))
	}
	if strings.Join(paths, ",") != "userId,ttlMinutes,actions" {
		t.Fatalf("issues at %v: %+v", paths, issues)
	}
	if !b.Global || string(b.Input) != `{"a":1}` || b.UserID != "" {
		t.Fatalf("good fields not decoded or case-folded key accepted: %+v", b)
	}
	if issues[2].Message != "must be an array of strings" || issues[1].Message != "must be an integer" {
		t.Fatalf("messages: %q, %q", issues[2].Message, issues[1].Message)
	}
}

func TestDecodeBody_TooLarge(t *testing.T) {
	t.Parallel()
	s := New(Options{MaxBodyBytes: 64})
	_, issues := decodeString(t, s, `{"userId":"`+strings.Repeat("x", 100)+`"}`)
	if len(issues) != 1 || issues[0].Code != apierr.IssueTooBig {
		t.Fatalf("%+v", issues)
	}
}

func TestParsePage(t *testing.T) {
	t.Parallel()
	parse := func(raw string) (Page, apierr.Issues) {
		q, _ := url.ParseQuery(raw)
		var is apierr.Issues
		return parsePage(q, "tools", "project-a", &is), is
	}
	if p, is := parse(""); len(is) != 0 || p != (Page{Limit: 100}) {
		t.Fatalf("default: %+v %v", p, is)
	}
	if p, is := parse("limit=500"); len(is) != 0 || p.Limit != 500 {
		t.Fatalf("500: %+v %v", p, is)
	}
	for _, bad := range []string{"limit=0", "limit=501", "limit=ten", "cursor=", "cursor=" + strings.Repeat("a", 301), "cursor=!!!",
		"cursor=" + encodeCursor("tools", "project-b", "x"), "cursor=" + encodeCursor("connectors", "project-a", "x")} {
		if _, is := parse(bad); len(is) != 1 {
			t.Errorf("%s: issues %v", bad, is)
		}
	}
	if _, is := parse("limit=0&cursor=zz"); len(is) != 2 {
		t.Errorf("two problems, issues %v", is)
	}
	c := encodeCursor("tools", "project-a", "github_create_issue")
	if p, is := parse("cursor=" + c); len(is) != 0 || p.After != "github_create_issue" {
		t.Fatalf("round trip: %+v %v", p, is)
	}
}

func TestQueryBool(t *testing.T) {
	t.Parallel()
	q, _ := url.ParseQuery("a=true&b=false&c=1&d=TRUE")
	var is apierr.Issues
	if v := queryBool(q, "a", &is); v == nil || !*v {
		t.Error("a")
	}
	if v := queryBool(q, "b", &is); v == nil || *v {
		t.Error("b")
	}
	if v := queryBool(q, "missing", &is); v != nil {
		t.Error("missing")
	}
	queryBool(q, "c", &is)
	queryBool(q, "d", &is)
	if len(is) != 2 {
		t.Fatalf("issues %v", is)
	}
	if queryText(q, "a", 1, 3, &is) != "" || len(is) != 3 {
		t.Fatalf("queryText accepted a 4-character value: %v", is)
	}
}

func TestRespondPage_NextCursorNullOnLastPage(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	respondPage(rec, []int{1}, "", nil)
	if strings.TrimSpace(rec.Body.String()) != `{"data":[1],"nextCursor":null}` {
		t.Fatalf("%s", rec.Body)
	}
	rec = httptest.NewRecorder()
	respondPage(rec, []int{}, "abc", map[string]int{"x": 1})
	if strings.TrimSpace(rec.Body.String()) != `{"data":[],"nextCursor":"abc","facets":{"x":1}}` {
		t.Fatalf("%s", rec.Body)
	}
}
