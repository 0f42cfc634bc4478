// Command webhook-receiver receives trigger.fired events and trusts only
// deliveries whose Standard Webhooks signature verifies with the
// endpoint's secret. With -register it registers itself through the API
// (printing nothing secret) and removes the webhook when it stops;
// otherwise give the secret of an endpoint you registered in
// SWITCHBOARD_WEBHOOK_SECRET.
//
//	SWITCHBOARD_API_KEY=sb_... go run ./examples/webhook-receiver -register
//
// A webhook URL must be https, except plain http to loopback when the
// server runs with SWITCHBOARD_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	register := flag.Bool("register", false, "register this receiver as a webhook through the API (needs SWITCHBOARD_API_KEY)")
	maxEvents := flag.Int("max-events", 0, "stop after this many verified events (0: run until interrupted)")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/webhooks/switchboard"
	fmt.Println("listening on", url)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	secret := os.Getenv("SWITCHBOARD_WEBHOOK_SECRET")
	if *register {
		sb := switchboard.New(os.Getenv("SWITCHBOARD_API_KEY"), switchboard.WithBaseURL(envOr("SWITCHBOARD_URL", switchboard.DefaultBaseURL)))
		hook, err := sb.CreateWebhook(ctx, url, "examples/webhook-receiver")
		if err != nil {
			log.Fatal(err)
		}
		secret = hook.Secret
		fmt.Println("registered webhook", hook.ID)
		defer func() {
			if _, err := sb.DeleteWebhook(context.Background(), hook.ID); err == nil {
				fmt.Println("removed webhook", hook.ID)
			}
		}()
	}
	if secret == "" {
		log.Fatal("give -register, or the endpoint's secret in SWITCHBOARD_WEBHOOK_SECRET")
	}

	events := make(chan switchboard.TriggerFiredEvent)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhooks/switchboard", func(w http.ResponseWriter, r *http.Request) {
		// Verify the raw bytes: decoding and re-encoding would change them.
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		ev, err := switchboard.VerifyWebhook(secret, r.Header, body, time.Now(), 0)
		if err != nil {
			fmt.Println("rejected a delivery:", err)
			http.Error(w, "signature does not verify", http.StatusUnauthorized)
			return
		}
		// Answer quickly; slow work belongs in a queue. A retried delivery
		// keeps its webhook-id, which is what to deduplicate on.
		w.WriteHeader(http.StatusNoContent)
		select {
		case events <- ev:
		case <-r.Context().Done():
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	}()

loop:
	for n := 0; *maxEvents == 0 || n < *maxEvents; n++ {
		select {
		case ev := <-events:
			user := "(global account)"
			if ev.Data.UserID != nil {
				user = *ev.Data.UserID
			}
			fmt.Printf("verified %s %s trigger=%s user=%s payload=%s\n", ev.Type, ev.Data.Event, ev.Data.TriggerID, user, ev.Data.Payload)
		case <-ctx.Done():
			break loop
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
