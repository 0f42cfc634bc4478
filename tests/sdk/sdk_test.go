package sdk

import (
	"testing"
)

// TestSDKs_AgainstRealServe runs every client's tests against one real
// serve, each in its own project.
func TestSDKs_AgainstRealServe(t *testing.T) {
	s := startStack(t)
	t.Run("Go", func(t *testing.T) {
		t.Parallel()
		goScenario(t, s, s.newProject(t, "go"))
	})
}
