// Package switchboard is a Go client for the Switchboard HTTP API
// (internal/httpapi/openapi.json): connectors and tools, executing tools,
// connections, sessions and their tools in function-calling shapes,
// connect links, triggers and webhooks, policies, approvals, quotas and
// redaction rules, and verification of the signed trigger.fired
// deliveries. It uses only the standard library.
package switchboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultBaseURL is where a local `switchboard serve` listens.
const DefaultBaseURL = "http://localhost:8080"

// Client calls one Switchboard project's API with its API key. It is safe
// for concurrent use.
type Client struct {
	baseURL    string
	apiKey     string
	httpClient *http.Client
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	// maxWait is the longest Retry-After the client waits out; a longer
	// one is returned to the caller at once.
	maxWait   time.Duration
	sleepFunc func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets the API's base URL (default DefaultBaseURL).
func WithBaseURL(u string) Option {
	return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithHTTPClient sets the HTTP client (default: one with a 60 second timeout).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithMaxRetries sets how many times a retryable failure is retried
// (default 2; 0 turns retries off).
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = max(n, 0) } }

// WithBackoff sets the first retry's wait and the longest wait between
// tries (default 500ms and 8s). A Retry-After answer overrides them.
func WithBackoff(initial, maximum time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = initial, maximum }
}

// WithMaxRetryAfter sets the longest Retry-After the client waits out
// before trying again (default 60s); an answer asking for longer is
// returned as it is, for the caller to schedule.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxWait = d } }

// New returns a Client for the project whose API key is apiKey.
func New(apiKey string, opts ...Option) *Client {
	c := &Client{
		baseURL: DefaultBaseURL, apiKey: apiKey,
		httpClient: &http.Client{Timeout: 60 * time.Second},
		maxRetries: 2, minBackoff: 500 * time.Millisecond, maxBackoff: 8 * time.Second,
		maxWait: time.Minute, sleepFunc: sleepCtx,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// BaseURL returns the base URL the client calls.
func (c *Client) BaseURL() string { return c.baseURL }

// retryable reports whether a failed answer may be tried again. A 429 or
// 503 means the request was not acted on, and so does a provider's 429
// passed on as error.upstream (EXECUTION_ERROR with the provider's
// Retry-After): any method retries those. Other 5xx answers retry only
// reads and deletes, since a POST or PATCH (running a write tool, say) may
// have taken effect.
func retryable(method string, e *Error) bool {
	switch {
	case e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable:
		return true
	case e.Upstream != nil && e.Upstream.Status == http.StatusTooManyRequests:
		return true
	case e.Status >= 500:
		return method == http.MethodGet || method == http.MethodHead || method == http.MethodDelete
	}
	return false
}

// retryAfter reads a Retry-After header (seconds or an HTTP date).
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// backoff is the wait before retry number attempt (0-based): exponential
// with full jitter over its upper half, capped.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.minBackoff << attempt
	if d > c.maxBackoff || d <= 0 {
		d = c.maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// do sends one API request and decodes the JSON answer into out (when
// not nil), retrying per retryable. query may be nil; body is marshalled
// as JSON when not nil.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	_, err := c.doStatus(ctx, method, path, query, body, out)
	return err
}

// doStatus is do that also returns the status of a successful answer
// (202 for a call held for approval).
func (c *Client) doStatus(ctx context.Context, method, path string, query url.Values, body, out any) (int, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return 0, fmt.Errorf("switchboard: encode request: %w", err)
		}
	}
	u := c.baseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(payload))
		if err != nil {
			return 0, fmt.Errorf("switchboard: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", "switchboard-go")
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.httpClient.Do(req)
		if err != nil {
			// Nothing was answered; a request that never reached the
			// server is safe to send again, one cut off mid-way maybe not,
			// so only reads retry.
			if ctx.Err() == nil && attempt < c.maxRetries && (method == http.MethodGet || method == http.MethodHead) {
				if serr := c.sleepFunc(ctx, c.backoff(attempt)); serr != nil {
					return 0, serr
				}
				continue
			}
			return 0, fmt.Errorf("switchboard: %s %s: %w", method, path, err)
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return 0, fmt.Errorf("switchboard: %s %s: read answer: %w", method, path, err)
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			if out == nil || len(raw) == 0 {
				return resp.StatusCode, nil
			}
			if err := json.Unmarshal(raw, out); err != nil {
				return 0, fmt.Errorf("switchboard: %s %s: decode answer: %w", method, path, err)
			}
			return resp.StatusCode, nil
		}
		apiErr := decodeError(resp.StatusCode, raw)
		after, hasAfter := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		if hasAfter {
			apiErr.RetryAfter = after
		}
		if attempt < c.maxRetries && retryable(method, apiErr) {
			wait := after
			if !hasAfter {
				wait = c.backoff(attempt)
			}
			if wait > c.maxWait {
				return 0, apiErr
			}
			if serr := c.sleepFunc(ctx, wait); serr != nil {
				return 0, errors.Join(apiErr, serr)
			}
			continue
		}
		return 0, apiErr
	}
}

// data unwraps the {"data": ...} envelope of most answers.
type data[T any] struct {
	Data T `json:"data"`
}

// get, post, patch and del are do for one method, unwrapping data.
func get[T any](ctx context.Context, c *Client, path string, q url.Values) (T, error) {
	var d data[T]
	err := c.do(ctx, http.MethodGet, path, q, nil, &d)
	return d.Data, err
}

func post[T any](ctx context.Context, c *Client, path string, body any) (T, error) {
	var d data[T]
	if body == nil {
		body = struct{}{}
	}
	err := c.do(ctx, http.MethodPost, path, nil, body, &d)
	return d.Data, err
}

func patch[T any](ctx context.Context, c *Client, path string, body any) (T, error) {
	var d data[T]
	err := c.do(ctx, http.MethodPatch, path, nil, body, &d)
	return d.Data, err
}

func del[T any](ctx context.Context, c *Client, path string) (T, error) {
	var d data[T]
	err := c.do(ctx, http.MethodDelete, path, nil, nil, &d)
	return d.Data, err
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }
