package harness_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/scenarios"
)

// TestGoldensAreByteStable writes goldens from one emulated run of the
// suite and compares a second, independent run against them: ids, times
// and latencies must all be normalized away. The real-traffic scenarios
// (tag imported) have no emulator replies; their goldens are compared
// against the imported cassettes by the suite itself.
func TestGoldensAreByteStable(t *testing.T) {
	scs, err := harness.LoadFS(scenarios.FS)
	require.NoError(t, err)
	dir := t.TempDir()
	for _, update := range []bool{true, false} {
		for _, p := range harness.Select(scs, harness.Config{Skip: []string{"imported"}}) {
			cfg := emulated(t)
			cfg.NoGoldens, cfg.GoldenDir, cfg.UpdateGoldens = false, dir, update
			res := harness.RunScenario(context.Background(), cfg, p.Scenario, p.Model)
			for _, f := range res.Findings {
				t.Log(f)
			}
			assert.Contains(t, []harness.Status{harness.StatusPass, harness.StatusSkip, harness.StatusKnownFailure}, res.Status, "%s (update=%v): %s", res.Name(), update, res.Reason)
		}
	}
	if testing.Verbose() {
		t.Log(dir)
	}
}
