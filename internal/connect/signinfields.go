package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// flowError is a sign-in that gave no usable account values; msg is for
// the user, on the callback page, and names no secret.
type flowError struct{ msg string }

func (e *flowError) Error() string { return e.msg }

// maxAfterTokenBytes bounds the answer of an after-token call (a list of
// sites or tenants).
const maxAfterTokenBytes = 1 << 20

// flowFields returns the connection fields a provider hands over during or
// right after an OAuth sign-in (catalog README, "Auth method"): the
// method's redirect parameters, read from the callback's query, and the
// values its after-token call selects. typed are the fields the user typed
// before signing in, which may choose among the call's answers. A value
// that is missing or does not fit its field is a *flowError.
func (p *Page) flowFields(ctx context.Context, c *catalog.Connector, m *catalog.AuthMethod, q url.Values,
	accessToken string, typed map[string]string) (map[string]string, error) {
	o := m.OAuth2
	if len(o.RedirectParams) == 0 && o.AfterToken == nil {
		return nil, nil
	}
	out := map[string]string{}
	for _, name := range o.RedirectParams {
		if err := setField(c, out, name, q.Get(name), "with the sign-in"); err != nil {
			return nil, err
		}
	}
	if a := o.AfterToken; a != nil {
		body, err := p.afterTokenCall(ctx, c, a, accessToken)
		if err != nil {
			return nil, err
		}
		item, err := chooseItem(c, a, body, typed)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(a.Select))
		for name := range a.Select {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := setField(c, out, name, text(catalog.SelectPath(item, a.Select[name])), "after the sign-in"); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// tokenFields reads the connection fields the token response supplies
// (fromToken: Salesforce's instance_url), without the URL scheme, and holds
// each to its field's pattern like the values flowFields reads: the host
// of every later call comes from them.
func tokenFields(c *catalog.Connector, extra func(string) any) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range c.ConnectionFields {
		if f.FromToken == "" {
			continue
		}
		v, _ := extra(f.FromToken).(string)
		v = strings.TrimPrefix(strings.TrimPrefix(v, "https://"), "http://")
		if err := setField(c, out, f.Name, v, "with the token"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// afterTokenCall makes the after-token call with the new access token, in
// the connector's outbound scope, and decodes its JSON answer.
func (p *Page) afterTokenCall(ctx context.Context, c *catalog.Connector, a *catalog.AfterToken, accessToken string) (any, error) {
	req, err := http.NewRequestWithContext(ctx, a.Method, a.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: after-token request: %w", err)
	}
	format := a.TokenFormat
	if format == "" {
		format = "Bearer {value}"
	}
	req.Header.Set("Authorization", strings.Replace(format, "{value}", accessToken, 1))
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Switchboard/1")
	resp, err := p.Guard.Connector(c.ID).Client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("connect: after-token call of %s: %w", c.ID, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAfterTokenBytes+1))
	if err != nil {
		return nil, fmt.Errorf("connect: after-token call of %s: %w", c.ID, err)
	}
	if resp.StatusCode/100 != 2 || len(raw) > maxAfterTokenBytes {
		return nil, fmt.Errorf("connect: after-token call of %s answered %d (%d bytes)", c.ID, resp.StatusCode, len(raw))
	}
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("connect: after-token call of %s: %w", c.ID, err)
	}
	return body, nil
}

// chooseItem picks, when the answer is a list, the first element that
// every applicable match entry accepts: an entry applies when the user
// typed every field it names (or it names none). An object answer is its
// own item.
func chooseItem(c *catalog.Connector, a *catalog.AfterToken, body any, typed map[string]string) (any, error) {
	list, ok := body.([]any)
	if !ok {
		return body, nil
	}
	paths := make([]string, 0, len(a.Match))
	for path := range a.Match {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var asked []string // what the user typed that the choice must honour
	want := map[string]string{}
	for _, path := range paths {
		v, complete := catalog.FillTemplate(a.Match[path], typed)
		if !complete {
			continue
		}
		want[path] = v
		if v != a.Match[path] {
			asked = append(asked, v)
		}
	}
	for _, item := range list {
		if matches(item, want) {
			return item, nil
		}
	}
	if len(asked) > 0 {
		return nil, &flowError{fmt.Sprintf("None of the %d %s accounts you granted this app matches what you typed (%s). "+
			"Start again from your connect link and grant access to it when %s asks, or leave the field empty to take the first.",
			len(list), c.Name, strings.Join(asked, ", "), c.Name)}
	}
	return nil, &flowError{fmt.Sprintf("You granted this app access to no %s account it can act on. "+
		"Start again from your connect link and choose one when %s asks.", c.Name, c.Name)}
}

// matches reports whether item has each wanted value at its path (in any
// case: host names and organisation names are retyped by people).
func matches(item any, want map[string]string) bool {
	for path, v := range want {
		if !strings.EqualFold(text(catalog.SelectPath(item, path)), v) {
			return false
		}
	}
	return true
}

// setField checks a value the provider handed over against its connection
// field and stores it in out.
func setField(c *catalog.Connector, out map[string]string, name, v, when string) error {
	i := indexOfField(c, name)
	if i < 0 {
		return fmt.Errorf("connect: %s has no connection field %s", c.ID, name)
	}
	f := &c.ConnectionFields[i]
	if v == "" {
		return &flowError{fmt.Sprintf("%s did not send the %s %s, so the account could not be stored. Start again from your connect link.",
			c.Name, f.Label, when)}
	}
	if !f.Matches(v) {
		return &flowError{fmt.Sprintf("%s sent a %s %s that Switchboard does not recognise, so the account could not be stored. "+
			"Start again from your connect link; if it happens again, tell the service's administrator.", c.Name, f.Label, when)}
	}
	out[name] = v
	return nil
}

func indexOfField(c *catalog.Connector, name string) int {
	for i := range c.ConnectionFields {
		if c.ConnectionFields[i].Name == name {
			return i
		}
	}
	return -1
}

// text renders a selected JSON scalar as text ("" for nothing, an object
// or an array).
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}
