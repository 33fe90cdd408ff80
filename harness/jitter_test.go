package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/scenarios"
)

// TestBackoffWaitsReproducible: a run whose calls retry records the same
// backoff waits every time it runs (the run clock's jitter source is
// seeded alike), so report.json's sleeps_ns is the same from run to run;
// and the waits still carry jitter, not the bare 1 s and 2 s.
func TestBackoffWaitsReproducible(t *testing.T) {
	scs, err := scenario.LoadFS(scenarios.FS)
	require.NoError(t, err)
	var sc *scenario.Scenario
	for _, s := range scs {
		if s.ID == "retry/backoff-then-success" {
			sc = s
		}
	}
	require.NotNil(t, sc, "retry/backoff-then-success is not in the built-in suite")
	for _, model := range []string{"anthropic:claude-sonnet-4-6", "openai:gpt-5"} {
		var runs [2][]time.Duration
		for i := range runs {
			cfg, stop, err := newEmulated()
			require.NoError(t, err)
			res := harness.RunScenario(context.Background(), cfg, sc, model)
			stop()
			require.Equal(t, harness.StatusPass, res.Status, "%s: %s", model, res.Reason)
			runs[i] = res.Sleeps
		}
		require.Len(t, runs[0], 2, "%s: two backoff waits", model)
		require.Equal(t, runs[0], runs[1], "%s: the waits differ between two runs", model)
		for i, base := range []time.Duration{time.Second, 2 * time.Second} {
			w := runs[0][i]
			require.True(t, w > base && w < base*5/4, "%s: wait %d is %s, want jitter above %s and under a quarter more", model, i, w, base)
		}
	}
}
