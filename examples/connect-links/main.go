// Command connect-links is the part of an app's backend that sends its
// users to Switchboard's hosted Connect page: GET /connect makes a
// single-use connect link for the signed-in user and redirects there, and
// GET /accounts lists what the user has connected. The API key stays on
// this server.
//
//	SWITCHBOARD_API_KEY=sb_... go run ./examples/connect-links -connectors tasks
//	open http://127.0.0.1:8091/connect?user=ann
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8091", "listen address")
	connectors := flag.String("connectors", "", "comma-separated connectors to offer (default: all)")
	flag.Parse()
	key := os.Getenv("SWITCHBOARD_API_KEY")
	if key == "" {
		log.Fatal("SWITCHBOARD_API_KEY is not set")
	}
	base := os.Getenv("SWITCHBOARD_URL")
	if base == "" {
		base = switchboard.DefaultBaseURL
	}
	app := &backend{sb: switchboard.New(key, switchboard.WithBaseURL(base))}
	if *connectors != "" {
		app.connectors = strings.Split(*connectors, ",")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening on", "http://"+ln.Addr().String())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /connect", app.connect)
	mux.HandleFunc("GET /accounts", app.accounts)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

type backend struct {
	sb         *switchboard.Client
	connectors []string
}

// user is the signed-in user. A real app takes it from its own sign-in
// session, never from the request as here: the link lets whoever opens it
// connect accounts for that user.
func user(r *http.Request) string { return r.URL.Query().Get("user") }

func (b *backend) connect(w http.ResponseWriter, r *http.Request) {
	if user(r) == "" {
		http.Error(w, "who is signed in?", http.StatusUnauthorized)
		return
	}
	link, err := b.sb.CreateConnectLink(r.Context(), switchboard.ConnectLinkRequest{
		UserID: user(r), Connectors: b.connectors, ExpiresInMinutes: 15,
	})
	if err != nil {
		log.Printf("connect link: %v", err)
		http.Error(w, "could not start connecting", http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, link.URL, http.StatusSeeOther)
}

func (b *backend) accounts(w http.ResponseWriter, r *http.Request) {
	if user(r) == "" {
		http.Error(w, "who is signed in?", http.StatusUnauthorized)
		return
	}
	conns, err := b.sb.ListConnections(r.Context(), user(r))
	if err != nil {
		log.Printf("connections: %v", err)
		http.Error(w, "could not list accounts", http.StatusBadGateway)
		return
	}
	type account struct {
		ID, Connector, Name, Status string
	}
	out := []account{}
	for _, c := range conns {
		if !c.Global {
			out = append(out, account{c.ID, c.ConnectorID, c.Name, c.Status})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
