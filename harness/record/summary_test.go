package record_test

import (
	"testing"
	"time"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/record"
)

// TestSummaryString: the closing summary lists each failed run (a
// failure to record, or new cassettes that do not replay) with the first
// line of its reason, then counts every action, the failed replays, the
// runs that drifted and those without goldens; a replay that failed on a
// golden is drift, not a failed replay.
func TestSummaryString(t *testing.T) {
	drift := []harness.Finding{{ID: "golden/transcript.json", Level: harness.LevelError, Message: "differs"}}
	noGolden := []harness.Finding{{ID: "golden/transcript.json", Level: harness.LevelError, Message: "does not exist"}}
	recorded := func(model string) record.RunResult {
		return record.RunResult{Scenario: "basic/text", Model: model, Action: record.ActionRecorded,
			Replay: &harness.ScenarioResult{Status: harness.StatusPass}}
	}
	with := func(r record.RunResult, f func(*record.RunResult)) record.RunResult { f(&r); return r }
	for _, tc := range []struct {
		name string
		runs []record.RunResult
		want string
	}{
		{"nothing", nil, "0 recorded, 0 without traffic, 0 skipped, 0 failed in 1.5s"},
		{"clean", []record.RunResult{recorded("a"), recorded("b"), {Action: record.ActionSkipped}, {Action: record.ActionNoTraffic}},
			"2 recorded, 1 without traffic, 1 skipped, 0 failed in 1.5s"},
		{"failed to record", []record.RunResult{recorded("a"), {Scenario: "basic/text", Model: "b", Action: record.ActionFailed, Reason: "step 1: refused\nmore"}},
			"FAIL   basic/text [b]: step 1: refused\n1 recorded, 0 without traffic, 0 skipped, 1 failed in 1.5s"},
		{"failed replays", []record.RunResult{
			with(recorded("a"), func(r *record.RunResult) {
				r.Replay = &harness.ScenarioResult{Status: harness.StatusFail, Reason: "step 2: no match\nthe diff"}
			}),
			with(recorded("b"), func(r *record.RunResult) {
				r.Replay = &harness.ScenarioResult{Status: harness.StatusFail, Reason: "stream: bad"}
			}),
		}, "FAIL   basic/text [a]: the new cassettes do not replay: step 2: no match\nFAIL   basic/text [b]: the new cassettes do not replay: stream: bad\n" +
			"2 recorded, 0 without traffic, 0 skipped, 0 failed, 2 failed replay in 1.5s"},
		{"drift", []record.RunResult{
			with(recorded("a"), func(r *record.RunResult) {
				r.Replay = &harness.ScenarioResult{Status: harness.StatusFail, Reason: "golden/transcript.json: differs"}
				r.Drift = drift
			}),
			recorded("b"),
		}, "2 recorded, 0 without traffic, 0 skipped, 0 failed; 1 drifted from the goldens (review, then `conform run --update`) in 1.5s"},
		{"no goldens", []record.RunResult{
			with(recorded("a"), func(r *record.RunResult) { r.NoGolden = noGolden }),
			with(recorded("b"), func(r *record.RunResult) { r.NoGolden = noGolden }),
			recorded("c"),
		}, "3 recorded, 0 without traffic, 0 skipped, 0 failed; 2 have no goldens yet (`conform run --update` creates them) in 1.5s"},
		{"drift before no goldens", []record.RunResult{
			with(recorded("a"), func(r *record.RunResult) { r.Drift, r.NoGolden = drift, noGolden }),
		}, "1 recorded, 0 without traffic, 0 skipped, 0 failed; 1 drifted from the goldens (review, then `conform run --update`) in 1.5s"},
		{"planned", []record.RunResult{{Action: record.ActionPlanned}, {Action: record.ActionPlanned}, {Action: record.ActionSkipped}},
			"0 recorded, 0 without traffic, 1 skipped, 0 failed, 2 would be recorded in 1.5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := record.Summary{Runs: tc.runs, Duration: 1500 * time.Millisecond}
			if got := s.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
