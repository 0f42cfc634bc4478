package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func projectSettingsTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"ProjectSettings_RedirectsAndBrandingKeptApart": testProjectSettings,
		"Assets_PutOnceGet":                             testAssets,
	}
}

// testProjectSettings: redirect URLs and Connect page branding share one
// row; setting one never clears the other.
func testProjectSettings(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	if urls, err := s.RedirectURLs(ctx, p.ID); err != nil || len(urls) != 0 {
		t.Fatalf("unset redirect URLs: %v %v", urls, err)
	}
	if c, err := s.GetConnectSettings(ctx, p.ID); err != nil || c != (store.ConnectSettings{}) {
		t.Fatalf("unset branding: %+v %v", c, err)
	}
	urls := []string{"https://app.example.com/done", "https://app.example.com/other"}
	if err := s.SetRedirectURLs(ctx, p.ID, urls); err != nil {
		t.Fatal(err)
	}
	brand := store.ConnectSettings{Name: "Acme", Accent: "#ff6600", LogoKey: "logo-1", SelfManage: true}
	if err := s.SetConnectSettings(ctx, p.ID, brand); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RedirectURLs(ctx, p.ID); !slices.Equal(got, urls) {
		t.Fatalf("branding cleared the redirect URLs: %v", got)
	}
	if err := s.SetRedirectURLs(ctx, p.ID, urls[:1]); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetConnectSettings(ctx, p.ID); got != brand {
		t.Fatalf("redirect URLs cleared the branding: %+v", got)
	}
	if got, _ := s.RedirectURLs(ctx, p.ID); !slices.Equal(got, urls[:1]) {
		t.Fatalf("redirect URLs not replaced: %v", got)
	}
	if err := s.SetRedirectURLs(ctx, p.ID, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RedirectURLs(ctx, p.ID); len(got) != 0 {
		t.Fatalf("redirect URLs not cleared: %v", got)
	}
	if err := s.SetConnectSettings(ctx, p.ID, store.ConnectSettings{Name: "Acme 2"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetConnectSettings(ctx, p.ID); got != (store.ConnectSettings{Name: "Acme 2"}) {
		t.Fatalf("branding not replaced: %+v", got)
	}
	if got, _ := s.GetConnectSettings(ctx, other.ID); got != (store.ConnectSettings{}) {
		t.Fatalf("another project sees the branding: %+v", got)
	}
}

func testAssets(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	a := store.Asset{Key: "sha256-abc", ProjectID: p.ID, ContentType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0}}
	if err := s.PutAsset(ctx, a); err != nil {
		t.Fatal(err)
	}
	// The key is content-addressed: a second put of it changes nothing.
	if err := s.PutAsset(ctx, store.Asset{Key: a.Key, ProjectID: p.ID, ContentType: "text/plain", Data: []byte("x")}); err != nil {
		t.Fatalf("second put: %v", err)
	}
	got, err := s.GetAsset(ctx, a.Key)
	if err != nil || got.ProjectID != p.ID || got.ContentType != "image/png" || !slices.Equal(got.Data, a.Data) {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := s.GetAsset(ctx, "sha256-none"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown asset: %v", err)
	}
}
