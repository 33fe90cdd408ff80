package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestReportJSONParts requires report.json written in parts to be the
// bytes of the whole Report encoded at once (check.EncodeIndented): with
// no run, one, and enough to fill several chunks, with text that HTML
// escaping and the indentation could change.
func TestReportJSONParts(t *testing.T) {
	run := func(i int) harness.ScenarioResult {
		return harness.ScenarioResult{ID: fmt.Sprintf("basic/s-%d", i), Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusFail,
			Duration: time.Duration(i) * time.Millisecond, Reason: `a <b> & "c" {[,:]}`,
			Steps: []harness.StepResult{{Index: 1, Kind: scenario.StepCall, Pos: scenario.Pos{File: "scenarios/basic/s.yaml", Line: 3, Col: 5},
				Status: harness.StatusFail, Checks: []check.Check{{Name: "stop_reason", Message: "stop_reason max_tokens, want end_turn"}}}},
			Findings: []harness.Finding{{ID: "golden/events.json", Level: harness.LevelError, Step: -1, Message: "differs", Diff: "-a\n+b\n"}}}
	}
	for _, n := range []int{0, 1, 2, 500} {
		r := &harness.Result{Duration: 2 * time.Second}
		for i := range n {
			r.Runs = append(r.Runs, run(i))
		}
		rep := NewReport(r)
		want, err := check.EncodeIndented(rep)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := reportJSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		if n == 500 && len(parts) < 4 {
			t.Errorf("%d runs: %d parts, want the runs in several chunks", n, len(parts))
		}
		if got := bytes.Join(parts, nil); !bytes.Equal(got, want) {
			t.Errorf("%d runs: parts differ from the whole:\n%s", n, check.GoldenDiff(want, got))
		}
	}
}
