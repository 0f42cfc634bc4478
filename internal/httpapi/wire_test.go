package httpapi_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/httpapi"
	"github.com/switchboard-gw/switchboard/internal/logging"
)

// The fixture of package httpapi's tests builds the application here, with
// app.New: the object graph the tests drive is the one serve runs.
func init() {
	httpapi.BuildApp = func(t *testing.T, in httpapi.FixtureApp) httpapi.FixtureParts {
		t.Helper()
		cfg := &config.Config{
			DatabaseURL: in.DatabaseURL, SecretKeys: in.SecretKeys,
			BaseURL: in.BaseURL, WebURL: in.WebURL, AssetsURL: in.BaseURL + "/assets", MCPURL: "http://mcp.sb.test",
			WebhooksAllowHTTPLoopback: true,
		}
		a, err := app.New(context.Background(), cfg, app.Options{
			Logger: logging.New(in.Logs, "json", slog.LevelDebug), Now: in.Now, CatalogFS: in.CatalogFS,
			AllowLoopback: true, RootCAs: in.RootCAs, LookupFunc: in.LookupFunc, MaxConns: 4,
			Metrics: in.Metrics, TracerProvider: in.TracerProvider,
		})
		if err != nil {
			t.Fatalf("app.New: %v", err)
		}
		t.Cleanup(func() { a.Close() })
		return httpapi.FixtureParts{Server: a.API, Store: a.Store, Worker: a.Worker, Keyring: a.Keyring, Metrics: a.Metrics}
	}
}
