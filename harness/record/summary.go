package record

import (
	"fmt"
	"strings"
	"time"

	"github.com/metis-llm/metis/harness"
)

// Action is what a recording session did with one run.
type Action string

// Actions.
const (
	// ActionRecorded: the run passed and its cassettes were written.
	ActionRecorded Action = "recorded"
	// ActionNoTraffic: the run passed without reaching a provider (its
	// faults answered every attempt, or it failed before the wire as
	// expected), so it needs no cassette.
	ActionNoTraffic Action = "no-traffic"
	// ActionSkipped: not recorded (cassettes exist, replay passes, or the
	// model lacks a required capability).
	ActionSkipped Action = "skipped"
	// ActionFailed: the run failed; nothing was written.
	ActionFailed Action = "failed"
	// ActionPlanned: a dry run would record it.
	ActionPlanned Action = "would-record"
)

// RunResult is the outcome of one scenario × model run.
type RunResult struct {
	Scenario string
	Model    string
	Action   Action
	// Reason says why a run was skipped or failed, or, for a recorded
	// run the scenario marks a known failure, that it is one and its symptom.
	Reason string
	// Cassettes are the files written (or, in a dry run, to be written).
	Cassettes []string
	// Unchanged are those of Cassettes that already held exactly this
	// recording, and were left as they were.
	Unchanged []string
	Duration  time.Duration
	// Replay is the harness's replay of the new cassettes against the
	// goldens, for recorded runs.
	Replay *harness.ScenarioResult
	// Drift are the replay's golden differences (ID "golden/…", with a
	// (-want +got) Diff): expected after a live re-recording, to be
	// reviewed and accepted with `conform run --update`.
	Drift []harness.Finding
	// NoGolden are the replay's findings for golden files that do not
	// exist yet.
	NoGolden []harness.Finding
}

// Name is "scenario-id [model]".
func (r *RunResult) Name() string { return r.Scenario + " [" + r.Model + "]" }

// ReplayFailed reports whether the replay of the new cassettes failed for
// a reason other than golden drift.
func (r *RunResult) ReplayFailed() bool {
	return r.Replay != nil && r.Replay.Status == harness.StatusFail && !strings.HasPrefix(r.Replay.Reason, "golden/")
}

// Summary is the outcome of Run.
type Summary struct {
	Runs     []RunResult
	Duration time.Duration
}

// Count returns how many runs ended with action a.
func (s *Summary) Count(a Action) int {
	n := 0
	for _, r := range s.Runs {
		if r.Action == a {
			n++
		}
	}
	return n
}

// Failed reports whether a run failed to record or its new cassettes
// failed to replay. Drift from the goldens is not a failure.
func (s *Summary) Failed() bool {
	for i := range s.Runs {
		if s.Runs[i].Action == ActionFailed || s.Runs[i].ReplayFailed() {
			return true
		}
	}
	return false
}

// String is the closing summary: failed runs with their reasons, then
// the counts.
func (s *Summary) String() string {
	var b strings.Builder
	drift, noGolden, replayFailed := 0, 0, 0
	for i := range s.Runs {
		r := &s.Runs[i]
		switch {
		case r.Action == ActionFailed:
			fmt.Fprintf(&b, "FAIL   %s: %s\n", r.Name(), firstLine(r.Reason))
		case r.ReplayFailed():
			replayFailed++
			fmt.Fprintf(&b, "FAIL   %s: the new cassettes do not replay: %s\n", r.Name(), firstLine(r.Replay.Reason))
		case len(r.Drift) > 0:
			drift++
		case len(r.NoGolden) > 0:
			noGolden++
		}
	}
	fmt.Fprintf(&b, "%d recorded, %d without traffic, %d skipped, %d failed", s.Count(ActionRecorded), s.Count(ActionNoTraffic), s.Count(ActionSkipped), s.Count(ActionFailed))
	if n := s.Count(ActionPlanned); n > 0 {
		fmt.Fprintf(&b, ", %d would be recorded", n)
	}
	if replayFailed > 0 {
		fmt.Fprintf(&b, ", %d failed replay", replayFailed)
	}
	if drift > 0 {
		fmt.Fprintf(&b, "; %d drifted from the goldens (review, then `conform run --update`)", drift)
	}
	if noGolden > 0 {
		fmt.Fprintf(&b, "; %d have no goldens yet (`conform run --update` creates them)", noGolden)
	}
	fmt.Fprintf(&b, " in %s", s.Duration.Round(time.Millisecond))
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
