// Package config holds Switchboard's configuration: every option is a flag
// and a SWITCHBOARD_* environment variable, flags win, and Validate reports
// every bad value at once.
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Config is the whole configuration of one process.
type Config struct {
	// Addr is the listen address of {base_url} (and {web_url} by default).
	Addr string
	// MCPAddr is the listen address of {mcp_url}.
	MCPAddr string
	// AssetsAddr is the listen address of {assets_url}; empty means no listener.
	AssetsAddr string
	// BaseURL, WebURL, MCPURL and AssetsURL are the public addresses of the
	// four hosts (docs/operations.md); empty ones are derived by Resolve.
	BaseURL   string
	WebURL    string
	MCPURL    string
	AssetsURL string
	// DatabaseURL is `sqlite:PATH`, a plain path, or `postgres://…`.
	DatabaseURL string
	// SecretKeys is the key ring as `id:base64,…`, newest first; when empty
	// the ring is read from SecretKeyFile (created on first start).
	SecretKeys    string
	SecretKeyFile string
	// LogLevel is debug, info, warn or error; LogFormat is auto, json or text.
	LogLevel  string
	LogFormat string
	// ShutdownTimeout bounds how long in-flight requests may finish on stop.
	ShutdownTimeout time.Duration
	// MaxBodyBytes bounds a /v1 request body.
	MaxBodyBytes int64
	// DatabaseMaxConns bounds the database pool of this process; 0 takes
	// the store's default.
	DatabaseMaxConns int
	// BodyReadTimeout bounds how long a request body may take to arrive.
	BodyReadTimeout time.Duration
	// OutboundAllow opens private networks to chosen purposes
	// (PURPOSE=CIDR entries, comma-separated); empty opens none.
	OutboundAllow string
	// OutboundAllowances is OutboundAllow parsed by Resolve.
	OutboundAllowances netguard.Allowances
	// WebhooksAllowHTTPLoopback lets webhook endpoints be plain http on
	// loopback, for development.
	WebhooksAllowHTTPLoopback bool
	// LogRetention is how long execution log records are kept.
	LogRetention time.Duration
	// ExecutionLogOff turns the execution log off: no tool call is queued
	// or written; what is stored stays readable and is still pruned.
	ExecutionLogOff bool
	// MetricsAddr is the listen address of the Prometheus metrics
	// (GET /metrics); empty means no metrics at all.
	MetricsAddr string
	// Tracing turns OpenTelemetry traces on: SWITCHBOARD_OTEL is true, or
	// the standard OTEL_EXPORTER_OTLP_ENDPOINT (or its traces variant) is
	// set. The exporter reads the OTEL_* variables itself.
	Tracing bool
}

// option describes one setting: its flag, its variable and its default.
type option struct {
	flag, env, def, usage string
	str                   func(*raw) *string
}

// raw holds every setting as text until it is checked.
type raw struct {
	Config
	shutdown, maxBody, webhooksHTTP, bodyRead, dbConns, logRetention, execLog, otel string
}

var options = []option{
	{"addr", "SWITCHBOARD_ADDR", "127.0.0.1:8080", "listen address of the REST API, /api and the Connect page (loopback by default; :8080 listens on every interface)", func(c *raw) *string { return &c.Addr }},
	{"mcp-addr", "SWITCHBOARD_MCP_ADDR", "127.0.0.1:8081", "listen address of the MCP endpoints host (loopback by default; :8081 listens on every interface)", func(c *raw) *string { return &c.MCPAddr }},
	{"assets-addr", "SWITCHBOARD_ASSETS_ADDR", "", "listen address of a separate assets host (off when empty)", func(c *raw) *string { return &c.AssetsAddr }},
	{"base-url", "SWITCHBOARD_BASE_URL", "", "public URL of the REST API (default http://localhost:<addr port>)", func(c *raw) *string { return &c.BaseURL }},
	{"web-url", "SWITCHBOARD_WEB_URL", "", "public URL of the hosted Connect page (default: base URL)", func(c *raw) *string { return &c.WebURL }},
	{"mcp-url", "SWITCHBOARD_MCP_URL", "", "public URL of the MCP host (default http://localhost:<mcp-addr port>)", func(c *raw) *string { return &c.MCPURL }},
	{"assets-url", "SWITCHBOARD_ASSETS_URL", "", "public URL of the assets host (default: base URL + /assets)", func(c *raw) *string { return &c.AssetsURL }},
	{"database-url", "SWITCHBOARD_DATABASE_URL", "sqlite:./data/switchboard.db", "sqlite:PATH, a plain path, or postgres://…", func(c *raw) *string { return &c.DatabaseURL }},
	{"secret-keys", "SWITCHBOARD_SECRET_KEYS", "", "sealing keys as id:base64[,id:base64…], newest first (default: the key file)", func(c *raw) *string { return &c.SecretKeys }},
	{"secret-key-file", "SWITCHBOARD_SECRET_KEY_FILE", "./data/secret.key", "key file, created with mode 0600 on first start when no keys are given", func(c *raw) *string { return &c.SecretKeyFile }},
	{"log-level", "SWITCHBOARD_LOG_LEVEL", "info", "debug, info, warn or error", func(c *raw) *string { return &c.LogLevel }},
	{"log-format", "SWITCHBOARD_LOG_FORMAT", "auto", "auto (JSON unless the log goes to a terminal), json or text", func(c *raw) *string { return &c.LogFormat }},
	{"outbound-allow", "SWITCHBOARD_OUTBOUND_ALLOW", "", "private networks opened to one purpose each: PURPOSE=CIDR entries, comma-separated, PURPOSE one of connector:ID, connectors, mcp, webhooks; none by default", func(c *raw) *string { return &c.OutboundAllow }},
	{"webhooks-allow-http-loopback", "SWITCHBOARD_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "false", "allow http:// webhook endpoints on loopback (development only)", func(c *raw) *string { return &c.webhooksHTTP }},
	{"shutdown-timeout", "SWITCHBOARD_SHUTDOWN_TIMEOUT", "20s", "how long in-flight requests may finish on SIGINT/SIGTERM", func(c *raw) *string { return &c.shutdown }},
	{"max-body-bytes", "SWITCHBOARD_MAX_BODY_BYTES", "1048576", "largest accepted request body in bytes", func(c *raw) *string { return &c.maxBody }},
	{"database-max-conns", "SWITCHBOARD_DATABASE_MAX_CONNS", "", "most database connections this process opens: the PostgreSQL pool (default 20; max_connections must cover every replica's) or the SQLite read pool (default: CPUs, at least 4)", func(c *raw) *string { return &c.dbConns }},
	{"body-read-timeout", "SWITCHBOARD_BODY_READ_TIMEOUT", "30s", "how long a request body may take to arrive before the request is cut off", func(c *raw) *string { return &c.bodyRead }},
	{"log-retention", "SWITCHBOARD_LOG_RETENTION", "30d", "how long execution log records are kept: days (30d) or a duration (720h), at least 1h", func(c *raw) *string { return &c.logRetention }},
	{"execution-log", "SWITCHBOARD_EXECUTION_LOG", "on", "record every tool call in the execution log: on or off (off queues nothing; GET /v1/logs still answers with what is stored)", func(c *raw) *string { return &c.execLog }},
	{"metrics-addr", "SWITCHBOARD_METRICS_ADDR", "", "listen address of Prometheus metrics at GET /metrics (off when empty; keep it off the public network)", func(c *raw) *string { return &c.MetricsAddr }},
	{"otel", "SWITCHBOARD_OTEL", "false", "export OpenTelemetry traces over OTLP/HTTP, configured by the standard OTEL_* variables (also on when OTEL_EXPORTER_OTLP_ENDPOINT is set)", func(c *raw) *string { return &c.otel }},
}

// boolText is a yes/no option kept as text (parsed with the others by
// Resolve) that the flag package treats as a boolean flag.
type boolText struct{ p *string }

func (b boolText) String() string {
	if b.p == nil {
		return "false"
	}
	return *b.p
}

func (b boolText) Set(v string) error { *b.p = v; return nil }

// IsBoolFlag lets --name stand for --name=true.
func (b boolText) IsBoolFlag() bool { return true }

// Bind registers every option on fs and returns the Config that finish
// fills once fs has parsed: a flag given on the command line wins, else a
// non-empty environment variable (read through getenv), else the default.
// Environment values are never flag defaults, so help output cannot print
// a secret. finish returns the values that do not parse, for Resolve.
//
// Flags named in skip are not registered (a command that uses the name for
// something else); their settings still come from the environment.
func Bind(fs *flag.FlagSet, getenv func(string) string, skip ...string) (cfg *Config, finish func() []string) {
	r := &raw{}
	for _, o := range options {
		if slices.Contains(skip, o.flag) {
			*o.str(r) = o.def
			continue
		}
		if o.def == "false" {
			// A yes/no option: --name alone means true, as for flag.Bool.
			*o.str(r) = o.def
			fs.Var(boolText{o.str(r)}, o.flag, o.usage+" ("+o.env+")")
			continue
		}
		fs.StringVar(o.str(r), o.flag, o.def, o.usage+" ("+o.env+")")
	}
	cfg = &r.Config
	return cfg, func() []string {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, o := range options {
			if v := getenv(o.env); v != "" && !set[o.flag] {
				*o.str(r) = v
			}
		}
		var problems []string
		d, err := time.ParseDuration(r.shutdown)
		if err != nil || d <= 0 {
			problems = append(problems, fmt.Sprintf("shutdown timeout %q must be a positive duration such as 20s", r.shutdown))
		}
		cfg.ShutdownTimeout = d
		br, err := time.ParseDuration(r.bodyRead)
		if err != nil || br <= 0 {
			problems = append(problems, fmt.Sprintf("body read timeout %q must be a positive duration such as 30s", r.bodyRead))
		}
		cfg.BodyReadTimeout = br
		lr, err := parseRetention(r.logRetention)
		if err != nil || lr < time.Hour {
			problems = append(problems, fmt.Sprintf("log retention %q must be days such as 30d or a duration of at least 1h", r.logRetention))
		}
		cfg.LogRetention = lr
		switch r.execLog {
		case "on":
		case "off":
			cfg.ExecutionLogOff = true
		default:
			problems = append(problems, fmt.Sprintf("execution log %q must be on or off", r.execLog))
		}
		n, err := strconv.ParseInt(r.maxBody, 10, 64)
		if err != nil || n < 1024 || n > 64<<20 {
			problems = append(problems, fmt.Sprintf("max body bytes %q must be a number from 1024 to 67108864", r.maxBody))
		}
		cfg.MaxBodyBytes = n
		if r.dbConns != "" {
			conns, err := strconv.Atoi(r.dbConns)
			if err != nil || conns < 1 || conns > 1000 {
				problems = append(problems, fmt.Sprintf("database max conns %q must be a number from 1 to 1000", r.dbConns))
			}
			cfg.DatabaseMaxConns = conns
		}
		switch r.webhooksHTTP {
		case "true":
			cfg.WebhooksAllowHTTPLoopback = true
		case "false":
		default:
			problems = append(problems, fmt.Sprintf("webhooks allow http loopback %q must be true or false", r.webhooksHTTP))
		}
		switch r.otel {
		case "true", "1":
			cfg.Tracing = true
		case "false", "0":
		default:
			problems = append(problems, fmt.Sprintf("otel %q must be true or false", r.otel))
		}
		if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
			cfg.Tracing = true
		}
		return problems
	}
}

// Resolve fills the derived public URLs and checks every value, returning
// one error that lists every problem.
func (c *Config) Resolve(extra []string) error {
	problems := append([]string(nil), extra...)
	addrPort := func(name, addr string, optional bool) string {
		if addr == "" && optional {
			return ""
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %q must be host:port or :port", name, addr))
			return ""
		}
		return port
	}
	basePort := addrPort("addr", c.Addr, false)
	mcpPort := addrPort("mcp addr", c.MCPAddr, false)
	addrPort("assets addr", c.AssetsAddr, true)
	metricsPort := addrPort("metrics addr", c.MetricsAddr, true)
	if c.Addr == c.MCPAddr && basePort != "" && basePort != "0" {
		problems = append(problems, "addr and mcp addr must differ: the MCP host has a listener of its own")
	}
	if (c.MetricsAddr == c.Addr || c.MetricsAddr == c.MCPAddr) && metricsPort != "" && metricsPort != "0" {
		problems = append(problems, "metrics addr must differ from addr and mcp addr: the metrics have a private listener of their own")
	}

	if c.BaseURL == "" && basePort != "" {
		c.BaseURL = "http://localhost:" + portOr(basePort, "8080")
	}
	if c.WebURL == "" {
		c.WebURL = c.BaseURL
	}
	if c.MCPURL == "" && mcpPort != "" {
		c.MCPURL = "http://localhost:" + portOr(mcpPort, "8081")
	}
	if c.AssetsURL == "" {
		c.AssetsURL = strings.TrimRight(c.BaseURL, "/") + "/assets"
	}
	for _, u := range []struct{ name, val string }{
		{"base URL", c.BaseURL}, {"web URL", c.WebURL}, {"MCP URL", c.MCPURL}, {"assets URL", c.AssetsURL},
	} {
		if msg := checkPublicURL(u.val); msg != "" {
			problems = append(problems, fmt.Sprintf("%s %q %s", u.name, u.val, msg))
		}
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.WebURL = strings.TrimRight(c.WebURL, "/")
	c.MCPURL = strings.TrimRight(c.MCPURL, "/")
	c.AssetsURL = strings.TrimRight(c.AssetsURL, "/")

	if _, _, err := store.ParseURL(c.DatabaseURL); err != nil {
		problems = append(problems, err.Error())
	}
	if c.SecretKeys != "" {
		if _, err := secret.ParseKeys(c.SecretKeys); err != nil {
			problems = append(problems, "secret keys: "+strings.TrimPrefix(err.Error(), "secret: "))
		}
	} else if c.SecretKeyFile == "" {
		problems = append(problems, "give either secret keys or a secret key file")
	}
	if allow, err := netguard.ParseAllowances(c.OutboundAllow); err != nil {
		problems = append(problems, "outbound allow: "+strings.TrimPrefix(err.Error(), "netguard: "))
	} else {
		c.OutboundAllowances = allow
	}
	if _, err := c.Level(); err != nil {
		problems = append(problems, err.Error())
	}
	switch c.LogFormat {
	case "auto", "json", "text":
	default:
		problems = append(problems, fmt.Sprintf("log format %q must be auto, json or text", c.LogFormat))
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New("invalid configuration:\n  - " + strings.Join(problems, "\n  - "))
}

// portOr returns port, or def when port is 0 (an ephemeral port in tests).
func portOr(port, def string) string {
	if port == "0" {
		return def
	}
	return port
}

func checkPublicURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "is empty"
	case err != nil:
		return "is not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "must start with http:// or https://"
	case u.Host == "":
		return "has no host"
	case u.RawQuery != "" || u.Fragment != "":
		return "must not have a query or fragment"
	}
	return ""
}

// Level returns the slog level LogLevel names.
func (c *Config) Level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("log level %q must be debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// parseRetention reads a number of days ("30d") or a Go duration ("720h").
func parseRetention(v string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 36500 {
			return 0, fmt.Errorf("config: %q is not a number of days", v)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(v)
}
