package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func liveSessionTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Sessions_ListLiveNewestFirstPerProject": testListLiveSessions,
	}
}

// ListLiveSessions lists a project's unexpired sessions, newest first, up
// to the limit; another project's and expired ones are left out.
func testListLiveSessions(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	q, _ := s.CreateProject(ctx, "q")
	mk := func(project, user string, life time.Duration) store.Session {
		ss, err := s.CreateSession(ctx, store.Session{ProjectID: project, UserID: user, Spec: []byte(`{"userId":"` + user + `"}`),
			ExpiresAt: clock.Now().Add(life)})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		return ss
	}
	short := mk(p.ID, "a", 2*time.Second)
	old := mk(p.ID, "b", time.Hour)
	mk(q.ID, "c", time.Hour)
	newest := mk(p.ID, "d", time.Hour)
	clock.Advance(5 * time.Second) // short has expired
	list, err := s.ListLiveSessions(ctx, p.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != newest.ID || list[1].ID != old.ID || string(list[1].Spec) != `{"userId":"b"}` || list[1].UserID != "b" {
		t.Fatalf("live sessions: %+v (expired %s)", list, short.ID)
	}
	if list, _ := s.ListLiveSessions(ctx, p.ID, 1); len(list) != 1 || list[0].ID != newest.ID {
		t.Fatalf("limit 1: %+v", list)
	}
}
