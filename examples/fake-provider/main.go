// Command fake-provider is a stand-in third-party API for trying the
// examples against a local `switchboard serve` without any real account:
// a small task tracker that wants the API key given by -key in an X-Api-Key
// header. It serves its own OpenAPI description at /openapi.yaml, which
// `switchboard admin openapi import` turns into a connector (see
// examples/README.md).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "listen address")
	key := flag.String("key", "tasks-secret", "the API key callers must send")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	// The first line says where it listens, for scripts and tests.
	fmt.Printf("fake-provider listening on %s\n", base)
	log.Fatal(http.Serve(ln, newTracker(base, *key)))
}

// tracker is the fake API: tasks in memory.
type tracker struct {
	base, key string
	mu        sync.Mutex
	tasks     []map[string]any
}

func newTracker(base, key string) http.Handler {
	tr := &tracker{base: base, key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.yaml", tr.openAPI)
	mux.HandleFunc("GET /tasks", tr.authed(tr.list))
	mux.HandleFunc("POST /tasks", tr.authed(tr.create))
	mux.HandleFunc("GET /tasks/{id}", tr.authed(tr.get))
	return mux
}

func (tr *tracker) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != tr.key {
			reply(w, http.StatusUnauthorized, map[string]string{"message": "bad API key"})
			return
		}
		h(w, r)
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (tr *tracker) list(w http.ResponseWriter, _ *http.Request) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	reply(w, http.StatusOK, map[string]any{"tasks": tr.tasks})
}

func (tr *tracker) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title string `json:"title"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || strings.TrimSpace(in.Title) == "" {
		reply(w, http.StatusBadRequest, map[string]string{"message": "title is required"})
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	t := map[string]any{"id": fmt.Sprintf("t%d", len(tr.tasks)+1), "title": in.Title, "done": false}
	tr.tasks = append(tr.tasks, t)
	reply(w, http.StatusCreated, t)
}

func (tr *tracker) get(w http.ResponseWriter, r *http.Request) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, t := range tr.tasks {
		if t["id"] == r.PathValue("id") {
			reply(w, http.StatusOK, t)
			return
		}
	}
	reply(w, http.StatusNotFound, map[string]string{"message": "no such task"})
}

func (tr *tracker) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = fmt.Fprintf(w, `openapi: 3.0.3
info: {title: Tasks, version: "1.0", description: A small fake task tracker for the examples.}
servers: [{url: %q}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key, description: API key}
security: [{key: []}]
paths:
  /tasks:
    get:
      operationId: listTasks
      summary: List every task in the tracker
      responses: {"200": {description: The tasks.}}
    post:
      operationId: createTask
      summary: Create a task with a title
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties: {title: {type: string, description: What needs doing.}}
      responses: {"201": {description: The new task.}}
  /tasks/{id}:
    get:
      operationId: getTask
      summary: Get one task by its id
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: The task.}}
`, tr.base)
}
