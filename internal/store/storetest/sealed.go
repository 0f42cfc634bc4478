package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func sealedTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Sealed_PageGetReplaceOnlyIfUnchanged":   testSealedValues,
		"SecretKeys_PutListDeleteEachSealed":     testSecretKeys,
		"SecretKeys_ConcurrentFirstStartsOneKey": testSecretKeysConcurrent,
	}
}

func testSealedValues(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	var ids []string
	for range 5 {
		ids = append(ids, f.create(t, "u1", "", false).ID)
	}
	slices.Sort(ids)
	const col = "connections.credential"
	var paged []string
	var after []string
	for {
		page, err := f.s.SealedPage(ctx, col, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		if len(page) > 2 {
			t.Fatalf("page of %d, limit 2", len(page))
		}
		for _, v := range page {
			if v.Column != col || string(v.Value) != "sealed" {
				t.Fatalf("value: %+v", v)
			}
			paged = append(paged, v.RowID())
		}
		after = page[len(page)-1].Keys
	}
	if !slices.Equal(paged, ids) {
		t.Fatalf("paged %v, want %v in key order", paged, ids)
	}

	v, err := f.s.GetSealed(ctx, col, []string{ids[0]})
	if err != nil || string(v.Value) != "sealed" {
		t.Fatalf("get: %+v %v", v, err)
	}
	if ok, err := f.s.ReplaceSealed(ctx, v, []byte("resealed")); err != nil || !ok {
		t.Fatalf("replace: %v %v", ok, err)
	}
	// v.Value is stale now: a second replace must not overwrite.
	if ok, err := f.s.ReplaceSealed(ctx, v, []byte("again")); err != nil || ok {
		t.Fatalf("replace of a changed value: %v %v", ok, err)
	}
	if got, _ := f.s.GetSealed(ctx, col, []string{ids[0]}); string(got.Value) != "resealed" {
		t.Fatalf("after replace: %q", got.Value)
	}
	if _, err := f.s.GetSealed(ctx, col, []string{store.NewID()}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown row: %v", err)
	}
	if _, err := f.s.SealedPage(ctx, "connections.name", nil, 10); err == nil {
		t.Fatal("a column that is not sealed was read")
	}
	if _, err := f.s.ReplaceSealed(ctx, store.SealedValue{Column: col, Keys: []string{"a", "b"}, Value: v.Value}, nil); err == nil {
		t.Fatal("a wrong key count was accepted")
	}

	// Two key columns: a project connector's headers; empty values are left out.
	if err := f.s.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "acme_mcp", Origin: "mcp",
		Definition: []byte(`{}`), Headers: []byte("sealed-headers")}); err != nil {
		t.Fatal(err)
	}
	if err := f.s.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "bare_mcp", Origin: "mcp",
		Definition: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	page, err := f.s.SealedPage(ctx, "project_connectors.headers", nil, 10)
	if err != nil || len(page) != 1 || page[0].RowID() != f.project.ID+"/acme_mcp" {
		t.Fatalf("headers: %+v %v", page, err)
	}
	if _, err := f.s.GetSealed(ctx, "project_connectors.headers", []string{f.project.ID, "bare_mcp"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("empty value: %v", err)
	}
	if next, err := f.s.SealedPage(ctx, "project_connectors.headers", page[0].Keys, 10); err != nil || len(next) != 0 {
		t.Fatalf("after the last row: %+v %v", next, err)
	}
	if len(store.SealedColumns()) == 0 {
		t.Fatal("no sealed columns")
	}
}

func testSecretKeys(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	f.create(t, "u1", "", false)
	list := func() []store.SecretKey {
		t.Helper()
		var out []store.SecretKey
		if err := f.s.WithSecretKeys(ctx, func(k *store.SecretKeys) (err error) { out, err = k.List(ctx); return err }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("fresh database: %+v", got)
	}
	err := f.s.WithSecretKeys(ctx, func(k *store.SecretKeys) error {
		if err := k.Put(ctx, "k1", []byte("check-1")); err != nil {
			return err
		}
		clock.Advance(time.Millisecond)
		return k.Put(ctx, "k0", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := list()
	if len(got) != 2 || got[0].ID != "k1" || string(got[0].Check) != "check-1" || got[1].ID != "k0" || got[1].Check != nil {
		t.Fatalf("list: %+v", got)
	}
	// Put replaces a check; an error rolls everything back.
	boom := errors.New("boom")
	err = f.s.WithSecretKeys(ctx, func(k *store.SecretKeys) error {
		if err := k.Delete(ctx, "k1"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || len(list()) != 2 {
		t.Fatalf("failed transaction: %v, %d keys", err, len(list()))
	}
	if err := f.s.WithSecretKeys(ctx, func(k *store.SecretKeys) error {
		if err := k.Put(ctx, "k0", []byte("check-0")); err != nil {
			return err
		}
		return k.Delete(ctx, "k1")
	}); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 1 || got[0].ID != "k0" || string(got[0].Check) != "check-0" {
		t.Fatalf("after replace and delete: %+v", got)
	}

	var seen []string
	if err := f.s.WithSecretKeys(ctx, func(k *store.SecretKeys) error {
		return k.EachSealed(ctx, func(v store.SealedValue) error { seen = append(seen, v.Column); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	// The fixture's one account; its auth config has no client secret.
	if !slices.Equal(seen, []string{"connections.credential"}) {
		t.Fatalf("each sealed: %v", seen)
	}
}

// testSecretKeysConcurrent: replicas starting on an empty database each
// record their key only if none is recorded; one key wins.
func testSecretKeysConcurrent(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := s.WithSecretKeys(ctx, func(k *store.SecretKeys) error {
				keys, err := k.List(ctx)
				if err != nil || len(keys) > 0 {
					return err
				}
				return k.Put(ctx, "key-"+string(rune('a'+i)), nil)
			})
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	var keys []store.SecretKey
	_ = s.WithSecretKeys(ctx, func(k *store.SecretKeys) (err error) { keys, err = k.List(ctx); return err })
	if len(keys) != 1 {
		t.Fatalf("%d keys recorded, want 1: %+v", len(keys), keys)
	}
}
