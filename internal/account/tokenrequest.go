package account

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// TokenClient returns the HTTP client for an auth method's token requests
// (the code exchange at the Connect page, a refresh in execute): c itself,
// or a copy that sends the form x/oauth2 writes as a JSON object with the
// same fields (tokenBodyType: json), and that lifts the token's fields to
// the top of the answer from where the provider nests them (tokenPath).
// The redirect policy and timeout of c are kept.
//
// For a method with a resource indicator (RFC 8707), every token request
// (the code exchange and each refresh, which x/oauth2 sends without extra
// fields) carries it as the resource field.
func TokenClient(c *http.Client, o *catalog.OAuth2) *http.Client {
	if o == nil || (o.TokenBodyType != "json" && o.TokenPath == "" && o.Resource == "") {
		return c
	}
	cc := *c
	next := cc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if o.TokenBodyType == "json" {
		next = jsonTokenBody{next: next}
	}
	if o.TokenPath != "" {
		next = nestedToken{next: next, path: o.TokenPath}
	}
	if o.Resource != "" {
		next = resourceTokenBody{resource: o.Resource, next: next}
	}
	cc.Transport = next
	return &cc
}

// resourceTokenBody adds the resource field to a form-encoded token
// request that does not carry one.
type resourceTokenBody struct {
	resource string
	next     http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t resourceTokenBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return t.next.RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("account: read token request: %w", err)
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, fmt.Errorf("account: token request form: %w", err)
	}
	if !form.Has("resource") {
		form.Set("resource", t.resource)
	}
	body := []byte(form.Encode())
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return t.next.RoundTrip(out)
}

// maxTokenAnswer bounds a token answer read to lift nested fields.
const maxTokenAnswer = 1 << 20

// nestedToken moves the fields of the object at path in a JSON token answer
// to its top, over what is there (Slack answers a user token under
// authed_user, beside the bot token, if any). An answer without that object
// loses its top-level access_token, so the exchange fails instead of
// storing a token of another kind.
type nestedToken struct {
	next http.RoundTripper
	path string
}

// RoundTrip implements http.RoundTripper.
func (n nestedToken) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := n.next.RoundTrip(req)
	if err != nil || res.StatusCode != http.StatusOK {
		return res, err
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxTokenAnswer))
	_ = res.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("account: read token answer: %w", err)
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) == nil {
		if inner, ok := catalog.SelectPath(obj, n.path).(map[string]any); ok {
			for k, v := range inner {
				obj[k] = v
			}
		} else {
			delete(obj, "access_token")
		}
		if b, err := json.Marshal(obj); err == nil {
			raw = b
			res.Header.Set("Content-Type", "application/json")
		}
	}
	res.Body = io.NopCloser(bytes.NewReader(raw))
	res.ContentLength = int64(len(raw))
	res.Header.Del("Content-Length")
	return res, nil
}

// jsonTokenBody re-encodes a form-encoded request body as a JSON object
// of strings (Square's ObtainToken, Zendesk's grant-type tokens); any
// other request passes unchanged.
type jsonTokenBody struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (j jsonTokenBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return j.next.RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("account: read token request: %w", err)
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, fmt.Errorf("account: token request form: %w", err)
	}
	obj := make(map[string]string, len(form))
	for k := range form {
		obj[k] = form.Get(k)
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("account: token request as JSON: %w", err)
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	out.Header.Set("Content-Type", "application/json")
	out.Header.Set("Accept", "application/json")
	return j.next.RoundTrip(out)
}

// TokenExpiry is when a token answer's access token expires: x/oauth2's
// reading of expires_in, else an expires_at time (Square answers with the
// moment, RFC 3339, instead of a lifetime); zero when the answer names
// neither.
func TokenExpiry(tok *oauth2.Token) time.Time {
	if !tok.Expiry.IsZero() {
		return tok.Expiry
	}
	if s, ok := tok.Extra("expires_at").(string); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
