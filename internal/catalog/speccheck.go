package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// SpecVerdict is the checker's verdict on one tool.
type SpecVerdict struct {
	Tool       string   `json:"tool"`
	Provider   string   `json:"provider"`
	Status     string   `json:"status"` // matched, mismatched or no-spec
	Operation  *string  `json:"operation"`
	Errors     []string `json:"errors"`
	Warnings   []string `json:"warnings"`
	Candidates []struct {
		Method string `json:"method"`
		URL    string `json:"url"`
	} `json:"candidates"`
}

// SpecResult is the checker's whole answer.
type SpecResult struct {
	Verdicts []SpecVerdict `json:"verdicts"`
	Summary  string        `json:"summary"`
}

// CheckSpecs runs the provider spec checker of shared/tools over tools. It
// indexes shared/provider-specs into index first, unless that file exists
// already (an empty index means workDir/ops.json). It needs python3.
func CheckSpecs(shared, workDir, index string, tools []SpecMatchTool) (*SpecResult, error) {
	if index == "" {
		index = filepath.Join(workDir, "ops.json")
	}
	if _, err := os.Stat(index); err != nil {
		if out, err := exec.Command("python3", filepath.Join(shared, "tools", "spec_index.py"),
			filepath.Join(shared, "provider-specs"), index).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("spec_index.py: %w\n%s", err, out)
		}
	}
	body, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	toolsFile := filepath.Join(workDir, "tools.json")
	if err := os.WriteFile(toolsFile, body, 0o600); err != nil {
		return nil, err
	}
	out, err := exec.Command("python3", filepath.Join(shared, "tools", "spec_match.py"), index, toolsFile, "--json").Output()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("spec_match.py: %w", err)
	}
	var res SpecResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("spec_match.py output: %w", err)
	}
	return &res, nil
}
