package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// health asks a running server's GET /health and succeeds only on 200 with
// status "ok". It exists for container health checks: the image has no
// shell and no curl, so the binary checks itself.
func (p *Program) health(ctx context.Context, args []string) error {
	fs := p.newFlagSet("health")
	target := fs.String("url", "", "URL to check (default: loopback on the port of SWITCHBOARD_ADDR, path /health)")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: switchboard health [--url http://127.0.0.1:8080/health] [--timeout 5s]")
	}
	if *timeout <= 0 {
		return usagef("--timeout must be positive, e.g. 5s")
	}
	u := *target
	if u == "" {
		u = defaultHealthURL(p.Getenv("SWITCHBOARD_ADDR"))
	}
	if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return usagef("--url must be an absolute http:// or https:// URL, got %q", u)
	}

	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	// A client of its own: no proxy from the environment, since the check
	// is about this host's server, not whatever HTTP_PROXY points at.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("health: %s does not answer: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("health: %s: reading the answer: %w", u, err)
	}
	var answer struct {
		Data struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	decodeErr := json.Unmarshal(body, &answer)
	if resp.StatusCode != http.StatusOK {
		if decodeErr == nil && answer.Data.Status != "" {
			return fmt.Errorf("health: %s answered %s (status %q)", u, resp.Status, answer.Data.Status)
		}
		return fmt.Errorf("health: %s answered %s", u, resp.Status)
	}
	if decodeErr != nil {
		return errors.New("health: " + u + " answered 200 but not the health answer {\"data\":{\"status\":\"ok\"}}")
	}
	if answer.Data.Status != "ok" {
		return fmt.Errorf("health: %s answered status %q, want \"ok\"", u, answer.Data.Status)
	}
	fmt.Fprintln(p.Stdout, "ok")
	return nil
}

// defaultHealthURL is /health on the listener of addr (SWITCHBOARD_ADDR) as
// seen from the same host: a wildcard or empty host is reached on loopback.
func defaultHealthURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		host, port = "", "8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/health"
}
