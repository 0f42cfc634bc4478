package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestNew_JSONWithRequestID(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := New(&buf, "auto", slog.LevelInfo).With("component", "test")
	log.InfoContext(WithRequestID(context.Background(), "req-1"), "hello", "k", "v")
	log.DebugContext(context.Background(), "hidden")
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON line: %q", buf.String())
	}
	if line["request_id"] != "req-1" || line["msg"] != "hello" || line["component"] != "test" {
		t.Fatalf("line %v", line)
	}
}

func TestNew_Text(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	New(&buf, "text", slog.LevelDebug).Debug("x")
	if !strings.Contains(buf.String(), "level=DEBUG msg=x") {
		t.Fatalf("got %q", buf.String())
	}
}
