package httpapi

import (
	"fmt"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// formProblem is what the operator can fix about a submitted form, as one
// line for view.Error: the error's message and each issue as "field
// message". ok is false for a fault of the server (not shown).
func formProblem(err error) (string, bool) {
	e, ok := apierr.As(err)
	if !ok || e.Code == apierr.InternalError {
		return "", false
	}
	if len(e.Issues) == 0 {
		return e.Message, true
	}
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		var path []string
		for _, p := range is.Path {
			path = append(path, fmt.Sprint(p))
		}
		parts[i] = strings.TrimSpace(strings.Join(path, ".") + " " + is.Message)
	}
	return strings.Join(parts, "; "), true
}
