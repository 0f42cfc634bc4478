package sdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// requireNodeEnv and requirePythonEnv, set to 1 in CI, turn a missing
// node (or the TypeScript SDK's npm packages) and a missing python3 into
// failures instead of skips.
const (
	requireNodeEnv   = "SWITCHBOARD_TEST_REQUIRE_NODE"
	requirePythonEnv = "SWITCHBOARD_TEST_REQUIRE_PYTHON"
)

// TestSDKs_AgainstRealServe runs every client's tests against one real
// serve, each in its own project.
func TestSDKs_AgainstRealServe(t *testing.T) {
	s := startStack(t)
	t.Run("Go", func(t *testing.T) {
		t.Parallel()
		goScenario(t, s, s.newProject(t, "go"))
	})
	t.Run("GoGovernance", func(t *testing.T) {
		t.Parallel()
		goGovernance(t, s, s.newProject(t, "go-governance"))
	})
	t.Run("Examples", func(t *testing.T) {
		t.Parallel()
		examplesScenario(t, s, s.newProject(t, "examples"))
	})
	t.Run("TypeScript", func(t *testing.T) {
		t.Parallel()
		node, dir := typescriptSDK(t, s.root)
		env := s.sdkEnv(s.newProject(t, "typescript"))
		run(t, dir, env, node, "scripts/check-generated.mjs")
		run(t, dir, env, node, "node_modules/eslint/bin/eslint.js", ".")
		run(t, dir, env, node, "node_modules/typescript/bin/tsc", "-p", "tsconfig.json")
		out := run(t, dir, env, node, "--test", "--test-reporter=tap", "build/test/")
		expectAllPassed(t, out, `(?m)^# pass (\d+)$`, `(?m)^# (?:fail|skipped|cancelled) [1-9]`, 10)
	})
	t.Run("Python", func(t *testing.T) {
		t.Parallel()
		python := pythonSDK(t)
		dir := filepath.Join(s.root, "clients", "python")
		env := append(s.sdkEnv(s.newProject(t, "python")), "PYTHONDONTWRITEBYTECODE=1")
		out := run(t, dir, env, python, "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v")
		expectAllPassed(t, out, `(?m)^Ran (\d+) tests? in`, `skipped|FAILED|ERROR`, 10)
	})
	t.Run("PythonTypes", func(t *testing.T) {
		t.Parallel()
		// mypy comes from Debian's python3-mypy where it is installed;
		// the SDK itself needs only the standard library.
		mypy := exec.Command("python3", "-m", "mypy", "--version")
		for _, py := range []string{"python3", "/usr/bin/python3"} {
			if exec.Command(py, "-m", "mypy", "--version").Run() == nil {
				mypy = exec.Command(py, "-m", "mypy", "--strict", "switchboard", "tests")
				break
			}
		}
		if len(mypy.Args) < 4 {
			t.Skip("mypy is not installed (Debian: apt-get install python3-mypy); the Python SDK's types were not checked")
		}
		mypy.Dir = filepath.Join(s.root, "clients", "python")
		if out, err := mypy.CombinedOutput(); err != nil {
			t.Fatalf("mypy --strict: %v\n%s", err, out)
		}
	})
}

// expectAllPassed checks a test runner's output: the count matched by
// ranRe is at least least, and nothing matches badRe (a failure or skip).
func expectAllPassed(t *testing.T, out, ranRe, badRe string, least int) {
	t.Helper()
	m := regexp.MustCompile(ranRe).FindStringSubmatch(out)
	n := 0
	if m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	if n < least || regexp.MustCompile(badRe).MatchString(out) {
		t.Fatalf("want at least %d tests run, all passed and none skipped:\n%s", least, out)
	}
	t.Logf("%d tests passed", n)
}

// typescriptSDK returns node and clients/typescript, skipping (failing in
// CI) when node or the SDK's npm packages are missing.
func typescriptSDK(t *testing.T, root string) (node, dir string) {
	t.Helper()
	dir = filepath.Join(root, "clients", "typescript")
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(filepath.Join(dir, "node_modules", "typescript", "bin", "tsc"))
	if err != nil || statErr != nil {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("node (%v) or the npm packages of %s (%v) are missing; run npm ci there (scripts/test-deps.sh does)", err, dir, statErr)
		}
		t.Skipf("node or the npm packages of %s are missing; run npm ci there (scripts/test-deps.sh does)", dir)
	}
	return node, dir
}

// pythonSDK returns python3 (3.9 or newer), skipping (failing with
// SWITCHBOARD_TEST_REQUIRE_PYTHON=1) when there is none.
func pythonSDK(t *testing.T) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err == nil {
		out, verr := exec.Command(python, "-c", "import sys; print(sys.version_info >= (3, 9))").Output()
		if verr != nil || strings.TrimSpace(string(out)) != "True" {
			err = errTooOld
		}
	}
	if err != nil {
		if os.Getenv(requirePythonEnv) == "1" {
			t.Fatalf("python3 3.9 or newer is needed: %v", err)
		}
		t.Skipf("python3 3.9 or newer is needed for the Python SDK's tests: %v", err)
	}
	return python
}
