package harness_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/scenarios"
)

// TestSuiteAgainstEmulator runs the whole built-in suite with the
// emulator standing in for the providers, as `record` will: every run
// must pass its expectations and the stream invariants.
func TestSuiteAgainstEmulator(t *testing.T) {
	scs, err := harness.LoadFS(scenarios.FS)
	require.NoError(t, err)
	for _, p := range harness.Select(scs, harness.Config{}) {
		t.Run(p.Scenario.ID+"/"+p.Model, func(t *testing.T) {
			cfg := emulated(t)
			res := harness.RunScenario(context.Background(), cfg, p.Scenario, p.Model)
			if res.Status == harness.StatusSkip {
				t.Skip(res.Reason)
			}
			for _, f := range res.Findings {
				t.Log(f)
			}
			assert.Equal(t, harness.StatusPass, res.Status, res.Reason)
		})
	}
}
