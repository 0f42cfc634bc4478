package config

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, env map[string]string, args ...string) (*Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg, problems := Bind(fs, func(k string) string { return env[k] })
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return cfg, cfg.Resolve(problems())
}

func TestDefaults_WorkWithNoConfiguration(t *testing.T) {
	t.Parallel()
	cfg, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Addr: "127.0.0.1:8080", MCPAddr: "127.0.0.1:8081", BaseURL: "http://localhost:8080", WebURL: "http://localhost:8080",
		MCPURL: "http://localhost:8081", AssetsURL: "http://localhost:8080/assets",
		DatabaseURL: "sqlite:./data/switchboard.db", SecretKeyFile: "./data/secret.key",
		LogLevel: "info", LogFormat: "auto", ShutdownTimeout: 20 * time.Second, MaxBodyBytes: 1 << 20, BodyReadTimeout: 30 * time.Second,
		LogRetention: 30 * 24 * time.Hour,
	}
	if !reflect.DeepEqual(*cfg, want) {
		t.Fatalf("got  %+v\nwant %+v", *cfg, want)
	}
}

func TestFlagsOverrideEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"SWITCHBOARD_ADDR":             ":9000",
		"SWITCHBOARD_DATABASE_URL":     "postgres://env@db/x",
		"SWITCHBOARD_LOG_LEVEL":        "debug",
		"SWITCHBOARD_SHUTDOWN_TIMEOUT": "5s",
	}
	cfg, err := load(t, env, "--database-url", "sqlite:/tmp/flag.db", "--shutdown-timeout", "7s", "--body-read-timeout", "3s", "--log-retention", "36h")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":9000" || cfg.BaseURL != "http://localhost:9000" || cfg.LogLevel != "debug" {
		t.Errorf("environment not applied: %+v", cfg)
	}
	if cfg.DatabaseURL != "sqlite:/tmp/flag.db" || cfg.ShutdownTimeout != 7*time.Second || cfg.BodyReadTimeout != 3*time.Second || cfg.LogRetention != 36*time.Hour {
		t.Errorf("flag did not win: %+v", cfg)
	}
}

func TestValidate_ReportsEveryBadValue(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"SWITCHBOARD_ADDR":              "nope",
		"SWITCHBOARD_BASE_URL":          "ftp://x",
		"SWITCHBOARD_DATABASE_URL":      "mysql://x",
		"SWITCHBOARD_SECRET_KEYS":       "k1:short",
		"SWITCHBOARD_LOG_LEVEL":         "loud",
		"SWITCHBOARD_LOG_FORMAT":        "xml",
		"SWITCHBOARD_SHUTDOWN_TIMEOUT":  "-1s",
		"SWITCHBOARD_MAX_BODY_BYTES":    "ten",
		"SWITCHBOARD_OUTBOUND_ALLOW":    "10.0.0.0",
		"SWITCHBOARD_BODY_READ_TIMEOUT": "0s",
		"SWITCHBOARD_LOG_RETENTION":     "10m",
	}
	_, err := load(t, env)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`addr "nope"`, `base URL "ftp://x"`, "sqlite: or postgres://", `key "k1"`,
		`log level "loud"`, `log format "xml"`, `shutdown timeout "-1s"`, `max body bytes "ten"`, `outbound allow: "10.0.0.0"`, `body read timeout "0s"`, `log retention "10m"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
}

func TestValidate_SameAddrForBaseAndMCP(t *testing.T) {
	t.Parallel()
	if _, err := load(t, nil, "--addr", ":9000", "--mcp-addr", ":9000"); err == nil || !strings.Contains(err.Error(), "must differ") {
		t.Fatalf("err %v", err)
	}
}

func TestValidate_SecretKeysNeverEchoed(t *testing.T) {
	t.Parallel()
	_, err := load(t, map[string]string{"SWITCHBOARD_SECRET_KEYS": "k1:c2VjcmV0LW1hdGVyaWFs"})
	if err == nil || strings.Contains(err.Error(), "c2VjcmV0LW1hdGVyaWFs") {
		t.Fatalf("err %v", err)
	}
}

func TestHelp_NeverPrintsEnvironmentValues(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var help strings.Builder
	fs.SetOutput(&help)
	Bind(fs, func(k string) string {
		if k == "SWITCHBOARD_SECRET_KEYS" {
			return "k1:c2VjcmV0LW1hdGVyaWFs"
		}
		return ""
	})
	fs.PrintDefaults()
	if strings.Contains(help.String(), "c2VjcmV0LW1hdGVyaWFs") || !strings.Contains(help.String(), "SWITCHBOARD_SECRET_KEYS") {
		t.Fatalf("help output:\n%s", help.String())
	}
}

func TestBooleanFlags_BareNameMeansTrue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, nil, false},
		{[]string{"--webhooks-allow-http-loopback"}, nil, true},
		{[]string{"--webhooks-allow-http-loopback=true"}, nil, true},
		{[]string{"--webhooks-allow-http-loopback=false"}, map[string]string{"SWITCHBOARD_WEBHOOKS_ALLOW_HTTP_LOOPBACK": "true"}, false},
		{nil, map[string]string{"SWITCHBOARD_WEBHOOKS_ALLOW_HTTP_LOOPBACK": "true"}, true},
	} {
		cfg, err := load(t, c.env, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.WebhooksAllowHTTPLoopback != c.want {
			t.Errorf("%v %v: %v, want %v", c.args, c.env, cfg.WebhooksAllowHTTPLoopback, c.want)
		}
	}
	if _, err := load(t, nil, "--webhooks-allow-http-loopback=maybe"); err == nil {
		t.Fatal("a value that is not a boolean was accepted")
	}
}

func TestDatabaseMaxConns(t *testing.T) {
	t.Parallel()
	cfg, err := load(t, map[string]string{"SWITCHBOARD_DATABASE_MAX_CONNS": "50"})
	if err != nil || cfg.DatabaseMaxConns != 50 {
		t.Fatalf("%v %d", err, cfg.DatabaseMaxConns)
	}
	if cfg, err := load(t, nil); err != nil || cfg.DatabaseMaxConns != 0 {
		t.Fatalf("default: %v %d", err, cfg.DatabaseMaxConns)
	}
	for _, bad := range []string{"0", "-1", "1001", "many"} {
		if _, err := load(t, nil, "--database-max-conns", bad); err == nil || !strings.Contains(err.Error(), "database max conns") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestTelemetrySettings(t *testing.T) {
	t.Parallel()
	cfg, err := load(t, nil)
	if err != nil || cfg.MetricsAddr != "" || cfg.Tracing {
		t.Fatalf("defaults: %v metrics %q tracing %v; want both off", err, cfg.MetricsAddr, cfg.Tracing)
	}
	cfg, err = load(t, map[string]string{"SWITCHBOARD_METRICS_ADDR": "127.0.0.1:9090", "SWITCHBOARD_OTEL": "1"})
	if err != nil || cfg.MetricsAddr != "127.0.0.1:9090" || !cfg.Tracing {
		t.Fatalf("set: %v metrics %q tracing %v", err, cfg.MetricsAddr, cfg.Tracing)
	}
	// The standard OTLP endpoint variable turns tracing on by itself.
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if cfg, err := load(t, map[string]string{v: "http://collector:4318"}); err != nil || !cfg.Tracing {
			t.Errorf("%s: %v tracing %v", v, err, cfg.Tracing)
		}
	}
	if cfg, err := load(t, nil, "--otel"); err != nil || !cfg.Tracing {
		t.Errorf("--otel: %v tracing %v", err, cfg.Tracing)
	}
	for _, bad := range []map[string]string{{"SWITCHBOARD_OTEL": "yes"}, {"SWITCHBOARD_METRICS_ADDR": "9090"},
		{"SWITCHBOARD_METRICS_ADDR": "127.0.0.1:8080"}, {"SWITCHBOARD_METRICS_ADDR": "127.0.0.1:8081"}} {
		if _, err := load(t, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestExecutionLogSetting(t *testing.T) {
	t.Parallel()
	if cfg, err := load(t, nil); err != nil || cfg.ExecutionLogOff {
		t.Fatalf("default: %v off %v; want on", err, cfg.ExecutionLogOff)
	}
	if cfg, err := load(t, map[string]string{"SWITCHBOARD_EXECUTION_LOG": "off"}); err != nil || !cfg.ExecutionLogOff {
		t.Fatalf("off: %v off %v", err, cfg.ExecutionLogOff)
	}
	// The flag wins over the variable.
	if cfg, err := load(t, map[string]string{"SWITCHBOARD_EXECUTION_LOG": "off"}, "--execution-log", "on"); err != nil || cfg.ExecutionLogOff {
		t.Fatalf("flag on: %v off %v", err, cfg.ExecutionLogOff)
	}
	for _, bad := range []string{"yes", "false", "OFF"} {
		if _, err := load(t, map[string]string{"SWITCHBOARD_EXECUTION_LOG": bad}); err == nil || !strings.Contains(err.Error(), "execution log") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
