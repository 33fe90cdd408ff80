package report_test

import (
	"testing"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestFocusNamesWhatFailedWhere covers the ways Focus finds a run's first
// failure: a step's error when none of its checks failed, a finding at a
// step, a run-wide finding, a warning passed over, the run's reason, and
// a scenario file known without its line.
func TestFocusNamesWhatFailedWhere(t *testing.T) {
	step := func(i int, line int, status harness.Status, errText string, checks ...check.Check) harness.StepResult {
		return harness.StepResult{Index: i, Kind: scenario.StepCall, Pos: scenario.Pos{File: "s.yaml", Line: line}, Status: status, Error: errText, Checks: checks}
	}
	tests := []struct {
		name        string
		r           harness.ScenarioResult
		check, here string
	}{
		{
			name:  "step error, its checks passed",
			r:     harness.ScenarioResult{File: "s.yaml", Line: 1, Steps: []harness.StepResult{step(0, 4, harness.StatusPass, ""), step(1, 9, harness.StatusFail, "connection reset", check.Check{Name: "status", OK: true})}},
			check: "step 2 (call): connection reset",
			here:  "s.yaml:9",
		},
		{
			name:  "finding at a step",
			r:     harness.ScenarioResult{File: "s.yaml", Line: 1, Steps: []harness.StepResult{step(0, 4, harness.StatusPass, ""), step(1, 9, harness.StatusPass, "")}, Findings: []harness.Finding{{ID: "stream/order", Level: harness.LevelWarn, Step: 0, Message: "a warning"}, {ID: "stream/order", Level: harness.LevelError, Step: 1, Message: "out of order\nsecond line"}}},
			check: "stream/order: out of order",
			here:  "s.yaml:9",
		},
		{
			name:  "run-wide finding",
			r:     harness.ScenarioResult{File: "s.yaml", Line: 3, Steps: []harness.StepResult{step(0, 4, harness.StatusPass, "")}, Findings: []harness.Finding{{ID: "cassette/unused", Level: harness.LevelError, Step: -1, Message: "1 unused"}}},
			check: "cassette/unused: 1 unused",
			here:  "s.yaml:3",
		},
		{
			name:  "finding at a step the run does not have",
			r:     harness.ScenarioResult{File: "s.yaml", Line: 3, Steps: []harness.StepResult{step(0, 4, harness.StatusPass, "")}, Findings: []harness.Finding{{ID: "x/y", Level: harness.LevelError, Step: 5, Message: "m"}}},
			check: "x/y: m",
			here:  "s.yaml:3",
		},
		{
			name:  "reason, file without a line",
			r:     harness.ScenarioResult{File: "s.yaml", Reason: "no cassette\nrecord it"},
			check: "no cassette",
			here:  "s.yaml",
		},
		{
			name:  "no file",
			r:     harness.ScenarioResult{Line: 7, Reason: "r"},
			check: "r",
			here:  "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.ID, tt.r.Model, tt.r.Status = "a/b", "m", harness.StatusFail
			f := report.Focus(&tt.r)
			if f.Check != tt.check || f.Where != tt.here {
				t.Errorf("Focus = check %q at %q, want %q at %q", f.Check, f.Where, tt.check, tt.here)
			}
		})
	}
}
