package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func endpointTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Endpoints_SlugsUniqueAcrossProjects": testEndpointLifecycle,
	}
}

func testEndpointLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	a, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: p.ID, Slug: "support", Mode: "static", RequireUser: true, Spec: []byte(`{"tools":["x"]}`)})
	if err != nil || a.ID == "" || !a.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("create: %+v %v", a, err)
	}
	clock.Advance(time.Second)
	b, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: p.ID, Slug: "sales", Mode: "dynamic", Spec: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: other.ID, Slug: "support", Mode: "static", Spec: []byte(`{}`)}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a slug taken in another project: %v", err)
	}
	got, err := s.EndpointBySlug(ctx, "support")
	if err != nil || got.ID != a.ID || got.ProjectID != p.ID || got.Mode != "static" || !got.RequireUser || string(got.Spec) != `{"tools":["x"]}` {
		t.Fatalf("by slug: %+v %v", got, err)
	}
	if _, err := s.EndpointBySlug(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown slug: %v", err)
	}
	list, err := s.ListEndpoints(ctx, p.ID)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("list: %+v %v", list, err)
	}
	if none, err := s.ListEndpoints(ctx, other.ID); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("list of another project: %#v %v", none, err)
	}

	clock.Advance(time.Minute)
	if err := s.UpdateEndpoint(ctx, store.Endpoint{Slug: "support", Mode: "dynamic", RequireUser: false, Spec: []byte(`{"v":2}`)}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.EndpointBySlug(ctx, "support")
	if got.Mode != "dynamic" || got.RequireUser || string(got.Spec) != `{"v":2}` || !got.UpdatedAt.Equal(clock.Now()) || !got.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("after update: %+v", got)
	}
	if err := s.UpdateEndpoint(ctx, store.Endpoint{Slug: "nope", Mode: "static", Spec: []byte(`{}`)}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update unknown: %v", err)
	}
	if err := s.DeleteEndpoint(ctx, "support"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteEndpoint(ctx, "support"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	// A deleted endpoint's slug is free again.
	if _, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: other.ID, Slug: "support", Mode: "static", Spec: []byte(`{}`)}); err != nil {
		t.Fatalf("reuse a freed slug: %v", err)
	}
}
