package record

import (
	"testing"

	"github.com/metis-llm/metis/harness"
)

// TestSettle: a recording's outcome as the summary reports it. A failed
// run's reason gains every error finding it does not already say, one
// a line, and no warning.
func TestSettle(t *testing.T) {
	findings := []harness.Finding{
		{ID: "stream/final-event", Level: harness.LevelError, Step: 1, Message: "the stream ended without message.complete"},
		{ID: "exec/stderr", Level: harness.LevelWarn, Step: -1, Message: "wrote to stderr"},
		{ID: "replay/mismatch", Level: harness.LevelError, Step: -1, Message: "no recorded request matches"},
	}
	for _, tc := range []struct {
		name      string
		cassettes []string
		hres      harness.ScenarioResult
		action    Action
		reason    string
	}{{
		name:      "recorded",
		cassettes: []string{"cassettes/anthropic/basic/x.yaml"},
		hres:      harness.ScenarioResult{Status: harness.StatusPass},
		action:    ActionRecorded,
	}, {
		name:   "no traffic",
		hres:   harness.ScenarioResult{Status: harness.StatusPass},
		action: ActionNoTraffic,
	}, {
		name:      "a known failure keeps its reason",
		cassettes: []string{"cassettes/anthropic/basic/x.yaml"},
		hres:      harness.ScenarioResult{Status: harness.StatusKnownFailure, Reason: "known failure (drops signatures); got: no signature"},
		action:    ActionRecorded, reason: "known failure (drops signatures); got: no signature",
	}, {
		name:   "skipped",
		hres:   harness.ScenarioResult{Status: harness.StatusSkip, Reason: "requires thinking"},
		action: ActionSkipped, reason: "requires thinking",
	}, {
		name:   "failed: errors added, warnings not",
		hres:   harness.ScenarioResult{Status: harness.StatusFail, Reason: "step 2: stop_reason", Findings: findings},
		action: ActionFailed,
		reason: "step 2: stop_reason\nstep 2: error stream/final-event: the stream ended without message.complete\nerror replay/mismatch: no recorded request matches",
	}, {
		name:   "failed: an error the reason says already",
		hres:   harness.ScenarioResult{Status: harness.StatusFail, Reason: "no recorded request matches", Findings: findings[1:]},
		action: ActionFailed,
		reason: "no recorded request matches",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := RunResult{Cassettes: tc.cassettes}
			res.settle(tc.hres)
			if res.Action != tc.action || res.Reason != tc.reason {
				t.Errorf("settle: %s %q\nwant %s %q", res.Action, res.Reason, tc.action, tc.reason)
			}
		})
	}
}
