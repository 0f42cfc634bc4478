package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// The execution log screen: the project's tool calls, newest first, with
// the filters of GET /v1/logs (read through the same s.logPage) and one
// record's detail. Members and owners alike may read it.

// logFilterFields are the filter form's fields, in the names GET /v1/logs
// takes.
var logFilterFields = []string{"userId", "connectorId", "toolId", "outcome", "since", "until"}

type logsData struct {
	Records []logView
	// Filter is what the form shows again; Next the link to the next page
	// (the same filters and the cursor), or "".
	Filter   map[string]string
	Next     string
	Filtered bool
}

type logData struct {
	Record                logView
	Input, Output, Policy string
}

// dashLogQuery is the screen's query as GET /v1/logs reads it: empty fields
// are left out, and a time from the form's datetime-local field (no zone,
// minutes) is read as UTC.
func dashLogQuery(in url.Values) (url.Values, map[string]string) {
	q, shown := url.Values{}, map[string]string{}
	for _, name := range logFilterFields {
		v := strings.TrimSpace(in.Get(name))
		if v == "" {
			continue
		}
		shown[name] = v
		if (name == "since" || name == "until") && len(v) == len("2006-01-02T15:04") {
			v += ":00Z"
		}
		q.Set(name, v)
	}
	for _, name := range []string{"cursor", "limit"} {
		if v := in.Get(name); v != "" {
			q.Set(name, v)
		}
	}
	return q, shown
}

func (s *Server) handleDashLogs(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	q, shown := dashLogQuery(r.URL.Query())
	data := logsData{Filter: shown, Filtered: len(shown) > 0}
	records, next, err := s.logPage(r.Context(), d.project.ProjectID, q)
	problem, status := "", 0
	if msg, ok := formProblem(err); ok {
		problem, status = msg, http.StatusUnprocessableEntity
	} else if err != nil {
		return err
	}
	for _, rec := range records {
		data.Records = append(data.Records, newLogView(rec))
	}
	if next != "" {
		for name, v := range shown {
			q.Set(name, v) // as the form shows it
		}
		q.Set("cursor", next)
		data.Next = "/dashboard/p/" + d.project.ProjectID + "/logs?" + q.Encode()
	}
	v := d.view("logs", "Execution log", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "logs", v)
}

func (s *Server) handleDashLog(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	rec, err := s.logRecord(r.Context(), d.project.ProjectID, r.PathValue("id"))
	if err != nil {
		return err
	}
	lv := newLogView(rec)
	data := logData{Record: lv, Input: indentJSON(lv.Input), Output: indentJSON(lv.Output), Policy: indentJSON(lv.Policy)}
	return s.render(w, 0, "log", d.view("logs", "Log record", data))
}

// indentJSON is a JSON value laid out for reading, or "" for none.
func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}
