package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// keyFileID returns the id of the key a key file holds.
func keyFileID(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	id, _, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	if !ok {
		t.Fatalf("key file %s is not id:base64", path)
	}
	return id
}

// runServeBriefly runs serve and stops it after a few seconds; a serve that
// refuses to start returns at once with its exit code.
func runServeBriefly(t *testing.T, env map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	var out, errOut lockedBuffer
	p := &Program{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}
	code := p.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--mcp-addr", "127.0.0.1:0"})
	return code, errOut.String()
}

func randomKeys(t *testing.T, ids ...string) string {
	t.Helper()
	var entries []string
	for _, id := range ids {
		m := make([]byte, 32)
		_, _ = rand.Read(m)
		entries = append(entries, id+":"+base64.StdEncoding.EncodeToString(m))
	}
	return strings.Join(entries, ",")
}

// Finding 5: a lost key file must not be silently replaced by a new key:
// the data sealed by the old one would answer 503 from then on.
func TestAdmin_MissingKeyFile_RefusesAndNamesTheKeyIDs(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	if code, out, stderr := runCLI(t, env, "admin", "webhook", "create", "--project", proj.ID, "--url", "https://hooks.example.com/x"); code != 0 {
		t.Fatalf("webhook create: %d %s %s", code, out, stderr)
	}
	keyFile := env["SWITCHBOARD_SECRET_KEY_FILE"]
	id := keyFileID(t, keyFile)
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runCLI(t, env, "admin", "webhook", "create", "--project", proj.ID, "--url", "https://hooks.example.com/y")
	if code != exitError || !strings.Contains(stderr, id) || !strings.Contains(stderr, "restore") {
		t.Fatalf("admin with a lost key file: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(keyFile); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused start left a new key file behind: %v", err)
	}
	code, stderr = runServeBriefly(t, env)
	if code != exitError || !strings.Contains(stderr, id) {
		t.Fatalf("serve with a lost key file: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(keyFile); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("serve left a new key file behind: %v", err)
	}
}

// Finding 5: a ring whose key has the right id but other material (a key
// file recreated by an older version) is refused too.
func TestAdmin_SameKeyIDOtherMaterial_Refused(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	delete(env, "SWITCHBOARD_SECRET_KEY_FILE")
	env["SWITCHBOARD_SECRET_KEYS"] = randomKeys(t, "k1")
	proj := newProject(t, env)
	if code, _, stderr := runCLI(t, env, "admin", "webhook", "create", "--project", proj.ID, "--url", "https://hooks.example.com/x"); code != 0 {
		t.Fatalf("webhook create: %d %s", code, stderr)
	}
	env["SWITCHBOARD_SECRET_KEYS"] = randomKeys(t, "k1")
	code, _, stderr := runCLI(t, env, "admin", "webhook", "list", "--project", proj.ID)
	if code != exitError || !strings.Contains(stderr, `"k1"`) || !strings.Contains(stderr, "not the key") {
		t.Fatalf("other material under k1: exit %d\n%s", code, stderr)
	}
}

// Finding 6: replicas on PostgreSQL that each create their own key file
// would each seal with a key the others cannot open.
func TestAdmin_PostgresReplicaWithItsOwnKeyFile_Refused(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresSchemaURL(t)
	dir := t.TempDir()
	replica := func(name string) map[string]string {
		return map[string]string{"SWITCHBOARD_DATABASE_URL": dbURL, "SWITCHBOARD_SECRET_KEY_FILE": filepath.Join(dir, name, "secret.key")}
	}
	a, b := replica("a"), replica("b")
	proj := newProject(t, a)
	if code, _, stderr := runCLI(t, a, "admin", "webhook", "create", "--project", proj.ID, "--url", "https://hooks.example.com/x"); code != 0 {
		t.Fatalf("replica a: %d %s", code, stderr)
	}
	code, _, stderr := runCLI(t, b, "admin", "webhook", "create", "--project", proj.ID, "--url", "https://hooks.example.com/y")
	if code != exitError || !strings.Contains(stderr, "SWITCHBOARD_SECRET_KEYS") || !strings.Contains(stderr, keyFileID(t, a["SWITCHBOARD_SECRET_KEY_FILE"])) {
		t.Fatalf("replica b with its own key file: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(b["SWITCHBOARD_SECRET_KEY_FILE"]); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the refused replica kept its new key file: %v", err)
	}
	code, stderr = runServeBriefly(t, b)
	if code != exitError || !strings.Contains(stderr, "SWITCHBOARD_SECRET_KEYS") {
		t.Fatalf("serve on replica b: exit %d\n%s", code, stderr)
	}

	// The shared ring is the way: replica b given a's key starts.
	ring, err := os.ReadFile(a["SWITCHBOARD_SECRET_KEY_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	shared := map[string]string{"SWITCHBOARD_DATABASE_URL": dbURL, "SWITCHBOARD_SECRET_KEYS": strings.TrimSpace(string(ring))}
	if code, _, stderr := runCLI(t, shared, "admin", "webhook", "list", "--project", proj.ID); code != 0 {
		t.Fatalf("replica with the shared ring: %d %s", code, stderr)
	}
}

// Finding 6: replicas starting together on an empty database each create a
// key file; exactly one key may win.
func TestAdmin_PostgresFirstStartRace_OneKeyWins(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresSchemaURL(t)
	dir := t.TempDir()
	proj := newProject(t, map[string]string{"SWITCHBOARD_DATABASE_URL": dbURL, "SWITCHBOARD_SECRET_KEY_FILE": filepath.Join(dir, "unused.key")})
	const n = 4
	codes := make([]int, n)
	stderrs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		env := map[string]string{"SWITCHBOARD_DATABASE_URL": dbURL, "SWITCHBOARD_SECRET_KEY_FILE": filepath.Join(dir, string(rune('a'+i)), "secret.key")}
		wg.Go(func() {
			var out, errOut bytes.Buffer
			p := &Program{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}
			codes[i] = p.Run(context.Background(), []string{"admin", "webhook", "list", "--project", proj.ID})
			stderrs[i] = errOut.String()
		})
	}
	wg.Wait()
	won := 0
	for i, c := range codes {
		switch {
		case c == 0:
			won++
		case !strings.Contains(stderrs[i], "SWITCHBOARD_SECRET_KEYS"):
			t.Errorf("replica %d refused without saying what to do: %s", i, stderrs[i])
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d replicas started with their own new key; want exactly 1: %v", won, n, stderrs)
	}
}
