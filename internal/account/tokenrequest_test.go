package account

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// TestTokenClient_SendsTheResource: a method with a resource indicator
// sends it with the code exchange and with a refresh (x/oauth2 adds no
// extra field to a refresh), as a form field or, for a JSON token
// endpoint, a member; one the request carries already is kept.
func TestTokenClient_SendsTheResource(t *testing.T) {
	t.Parallel()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Header.Get("Content-Type")+" "+string(b))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"a","token_type":"Bearer","refresh_token":"r","expires_in":60}`)
	}))
	defer srv.Close()
	for _, c := range []struct {
		o    catalog.OAuth2
		want []string
	}{{
		o: catalog.OAuth2{Resource: "https://mcp.example/mcp"},
		want: []string{"application/x-www-form-urlencoded " + url.Values{"code": {"c"}, "grant_type": {"authorization_code"},
			"resource": {"https://mcp.example/mcp"}}.Encode(),
			"application/x-www-form-urlencoded " + url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"r"},
				"resource": {"https://mcp.example/mcp"}}.Encode()},
	}, {
		o: catalog.OAuth2{Resource: "https://mcp.example/mcp", TokenBodyType: "json"},
		want: []string{`application/json {"code":"c","grant_type":"authorization_code","resource":"https://mcp.example/mcp"}`,
			`application/json {"grant_type":"refresh_token","refresh_token":"r","resource":"https://mcp.example/mcp"}`},
	}, {
		o: catalog.OAuth2{},
		want: []string{"application/x-www-form-urlencoded " + url.Values{"code": {"c"}, "grant_type": {"authorization_code"}}.Encode(),
			"application/x-www-form-urlencoded " + url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"r"}}.Encode()},
	}} {
		got = nil
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, TokenClient(srv.Client(), &c.o))
		conf := &oauth2.Config{Endpoint: oauth2.Endpoint{TokenURL: srv.URL, AuthStyle: oauth2.AuthStyleInHeader}}
		if _, err := conf.Exchange(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if _, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: "r"}).Token(); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != c.want[0] || got[1] != c.want[1] {
			t.Errorf("%+v: requests\n%q\nwant\n%q", c.o, got, c.want)
		}
	}
}
