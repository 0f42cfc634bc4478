package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// decodeBody reads the request body as a JSON object into dst, a pointer to
// a struct whose fields carry json tags. As the API conventions say (docs/README.md), a body
// that is not a JSON object is read as {}, so required fields then fail
// validation. Each field is decoded on its own, so every field of the wrong
// type is reported, not only the first; keys match tags exactly. Keys no
// field names are ignored. A body over the server's limit is an issue too,
// and so is a string anywhere in a field's value that is not valid UTF-8 or
// holds a NUL character (text.go says why).
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, dst any) apierr.Issues {
	var issues apierr.Issues
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		issues.Add(apierr.IssueTooBig, nil, "request body exceeds %d bytes", s.maxBody)
		return issues
	}
	if err != nil {
		// Cut off by the body read timeout, or the client went away: a
		// partial body is not read as {}, which would blame missing fields.
		issues.Add(apierr.IssueInvalidJSON, nil, "the request body did not arrive completely within %s; send it at once", s.bodyReadTimeout)
		return issues
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(body, &raw) != nil {
		raw = nil
	}
	decodeFields(raw, dst, bodyMayHoldBadText(body), &issues)
	return issues
}

// decodeFields decodes each raw value into the field of dst whose json tag
// names it, recording a type issue for each value that does not fit. With
// checkText, a value holding a string that is not valid text is an issue
// and leaves its field unset.
func decodeFields(raw map[string]json.RawMessage, dst any, checkText bool, issues *apierr.Issues) {
	if len(raw) == 0 {
		return
	}
	v := reflect.ValueOf(dst).Elem()
	for _, f := range fieldsOf(v.Type()) {
		msg, ok := raw[f.name]
		if !ok {
			continue
		}
		if checkText {
			if p, inKey, bad := findBadText(msg); bad {
				badTextIssue(issues, append([]any{f.name}, p...), inKey)
				continue
			}
		}
		fv := v.Field(f.index)
		if err := json.Unmarshal(msg, fv.Addr().Interface()); err != nil {
			fv.SetZero()
			issues.Add(apierr.IssueInvalidType, []any{f.name}, "must be %s", describeType(fv.Type()))
		}
	}
}

type field struct {
	name  string
	index int
}

var fieldCache sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		fs = append(fs, field{name: name, index: i})
	}
	fieldCache.Store(t, fs)
	return fs
}

// describeType names a Go type the way a JSON caller thinks of it.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return fmt.Sprintf("a %s", t.Kind())
}
