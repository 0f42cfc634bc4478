package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAdmin_MissingSQLiteDatabase_RefusedUnlessCreate(t *testing.T) {
	t.Parallel()
	env := freshEnv(t)
	path := strings.TrimPrefix(env["SWITCHBOARD_DATABASE_URL"], "sqlite:")
	code, out, stderr := runCLI(t, env, "admin", "project", "list")
	if code != exitError || out != "" {
		t.Fatalf("admin on a missing database: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"using database sqlite:" + path, "no database at sqlite:" + path, "--create", "SWITCHBOARD_DATABASE_URL"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a refused admin command left a database file behind: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		t.Fatalf("temp dir: %v", err)
	}

	code, out, stderr = runCLI(t, env, "admin", "project", "create", "acme", "--create")
	if code != exitOK || !strings.Contains(out, "created project") {
		t.Fatalf("--create: exit %d %q %s", code, out, stderr)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("--create made no database: %v", err)
	}
	code, out, stderr = runCLI(t, env, "admin", "project", "list")
	if code != exitOK || !strings.Contains(out, "acme") || !strings.Contains(stderr, "switchboard: using database sqlite:"+path+"\n") {
		t.Fatalf("admin on the created database: exit %d %q %q", code, out, stderr)
	}
}

func TestDatabaseLabel_NeverShowsAPassword(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"postgres://admin:s3cret@db.example:5432/sb?sslmode=require&password=also": "postgres://db.example:5432/sb",
		"postgresql://admin@db.example/sb":                                         "postgresql://db.example/sb",
		"sqlite:/var/lib/switchboard/switchboard.db":                               "sqlite:/var/lib/switchboard/switchboard.db",
		"/var/lib/sb.db": "sqlite:/var/lib/sb.db",
	}
	for in, want := range cases {
		got := databaseLabel(in)
		if got != want || strings.Contains(got, "s3cret") || strings.Contains(got, "also") {
			t.Errorf("databaseLabel(%q) = %q, want %q", in, got, want)
		}
	}
	wd, _ := os.Getwd()
	if got := databaseLabel("sqlite:./data/switchboard.db"); got != "sqlite:"+filepath.Join(wd, "data", "switchboard.db") {
		t.Errorf("a relative path is shown absolute: %q", got)
	}
}
