package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/secret"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testConfig is serve's default configuration on a fresh SQLite file with
// a random key ring, listening on loopback ports the kernel picks.
func testConfig(t *testing.T) *config.Config {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	cfg, finish := config.Bind(fs, func(string) string { return "" })
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	cfg.Addr, cfg.MCPAddr = "127.0.0.1:0", "127.0.0.1:0"
	cfg.DatabaseURL = "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	cfg.SecretKeys = "k1:" + base64.StdEncoding.EncodeToString(material)
	if err := cfg.Resolve(finish()); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestRun_ServesBothHostsUntilCanceled_ThenClosesEverything(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	addrs := make(chan [2]string, 3)
	a, err := New(context.Background(), testConfig(t), Options{
		Logger:   slog.New(slog.NewJSONHandler(logs, nil)),
		OnListen: func(name, addr string) { addrs <- [2]string{name, addr} },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	got := map[string]string{}
	for len(got) < 2 {
		select {
		case l := <-addrs:
			got[l[0]] = "http://" + l[1]
		case err := <-done:
			t.Fatalf("Run returned before listening: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("not listening")
		}
	}
	for url, want := range map[string]int{got["base"] + "/health": 200, got["mcp"] + "/no/such/path": 404} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d", url, resp.StatusCode, want)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
	if err := a.Store.Ping(context.Background()); err == nil {
		t.Fatal("the store is still open after Run returned")
	}
	if _, err := http.Get(got["base"] + "/health"); err == nil {
		t.Fatal("the base listener still answers")
	}
	if !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Fatalf("no stopped line:\n%s", logs)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

func TestClose_WithoutRun_ClosesTheStoreAndIsIdempotent(t *testing.T) {
	t.Parallel()
	a, err := New(context.Background(), testConfig(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Store.Ping(context.Background()); err == nil {
		t.Fatal("the store is still open")
	}
	if err := a.Run(context.Background()); err == nil {
		t.Fatal("Run after Close started")
	}
}

func TestRun_AddressTaken_FailsWithoutServingAndCloses(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := testConfig(t)
	cfg.MCPAddr = taken.Addr().String()
	listened := false
	a, err := New(context.Background(), cfg, Options{OnListen: func(string, string) { listened = true }})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "for the mcp host") {
		t.Fatalf("Run: %v", err)
	}
	if listened {
		t.Fatal("a listener was announced although the start failed")
	}
	if err := a.Store.Ping(context.Background()); err == nil {
		t.Fatal("the store is still open")
	}
}

func TestNew_RefusesAKeyRingThatCannotOpenTheStoredSecrets(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	a, err := New(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	cfg.SecretKeys = "k2:" + base64.StdEncoding.EncodeToString(material)
	if _, err := New(context.Background(), cfg, Options{}); err == nil {
		t.Fatal("a ring without the recorded key k1 was accepted")
	}
}
