package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestStallTimeoutIsVirtual: faults/stall-mid-stream's 1 s idle timeout
// runs on the run's virtual clock alone. The replay paces its events
// 1.1 s of real time apart, as a loaded machine might deliver them, and
// the idle timeout still fires only at the stall, after the sixth event:
// the run passes with the text so far and its goldens.
func TestStallTimeoutIsVirtual(t *testing.T) {
	if testing.Short() {
		t.Skip("paced replay: about 7 s of real time")
	}
	scs, err := scenario.LoadDir("../scenarios/faults")
	if err != nil {
		t.Fatal(err)
	}
	var sc *scenario.Scenario
	for _, s := range scs {
		if s.ID == "faults/stall-mid-stream" {
			sc = s
		}
	}
	if sc == nil {
		t.Fatal("no scenario faults/stall-mid-stream")
	}
	cfg := harness.Config{
		CassetteDir: "../cassettes",
		GoldenDir:   "../goldens",
		Factories:   factories(),
		Faults:      faults.FromSpec,
		Pacing:      1100 * time.Millisecond,
	}
	res := harness.RunScenario(context.Background(), cfg, sc, "anthropic:claude-sonnet-4-6")
	if res.Status != harness.StatusPass {
		for _, f := range res.Findings {
			t.Log(f)
		}
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
}
