package harness_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/scenarios"
)

// emulatedRun is one run of the built-in suite against the emulator and
// the golden files it rendered, by path.
type emulatedRun struct {
	pair    harness.Pair
	res     harness.ScenarioResult
	goldens map[string][]byte
}

var (
	emulatedOnce sync.Once
	emulatedRuns []emulatedRun
	emulatedErr  error
)

// emulatedSuite runs the whole built-in suite once per test binary with
// the emulator standing in for the providers, as `record` does, keeping
// each run's result and rendered goldens in memory: the tests that need
// a run of the whole suite share this one instead of each making its own.
// The real-traffic scenarios (tag imported) and those whose cassettes
// were edited by hand to carry a real server's bytes (tag edited) are
// left out: the emulator cannot answer as those servers did, and the
// suite compares their goldens against their committed cassettes itself. Under -short (the race detector's pass in
// CI) one run in eight, the first of eight shards, runs.
func emulatedSuite(t *testing.T) []emulatedRun {
	t.Helper()
	emulatedOnce.Do(func() {
		scs, err := scenario.LoadFS(scenarios.FS)
		if err != nil {
			emulatedErr = err
			return
		}
		sel := harness.Config{Factories: factories(), Skip: []string{"imported", "edited"}}
		if testing.Short() {
			sel.Shard, sel.Shards = 0, 8
		}
		for _, p := range harness.Select(scs, sel) {
			run := emulatedRun{pair: p, goldens: map[string][]byte{}}
			cfg, stop, err := newEmulated()
			if err != nil {
				emulatedErr = err
				return
			}
			cfg.NoGoldens = false
			cfg.Golden = func(path string, got []byte) (string, error) {
				run.goldens[path] = bytes.Clone(got)
				return "", nil
			}
			run.res = harness.RunScenario(context.Background(), cfg, p.Scenario, p.Model)
			stop()
			emulatedRuns = append(emulatedRuns, run)
		}
	})
	require.NoError(t, emulatedErr)
	require.NotEmpty(t, emulatedRuns)
	return emulatedRuns
}

// TestSuiteAgainstEmulator: in the emulated run of the whole built-in
// suite every run passes its expectations and the stream invariants.
func TestSuiteAgainstEmulator(t *testing.T) {
	for _, run := range emulatedSuite(t) {
		t.Run(run.pair.Scenario.ID+"/"+run.pair.Model, func(t *testing.T) {
			res := run.res
			if res.Status == harness.StatusSkip || res.Status == harness.StatusKnownFailure {
				t.Skip(res.Reason)
			}
			for _, f := range res.Findings {
				t.Log(f)
			}
			assert.Equal(t, harness.StatusPass, res.Status, res.Reason)
		})
	}
}

// TestGoldensAreByteStable compares a second, independent emulated run
// of the suite against the goldens the shared one rendered: ids, times
// and latencies must all be normalized away.
func TestGoldensAreByteStable(t *testing.T) {
	for _, run := range emulatedSuite(t) {
		if run.res.Status != harness.StatusPass {
			continue // TestSuiteAgainstEmulator reports it
		}
		cfg, stop, err := newEmulated()
		require.NoError(t, err)
		cfg.NoGoldens = false
		seen := 0
		cfg.Golden = func(path string, got []byte) (string, error) {
			seen++
			want, ok := run.goldens[path]
			if !ok {
				return check.GoldenDiff(nil, got), check.ErrNoGolden
			}
			if bytes.Equal(want, got) {
				return "", nil
			}
			return check.GoldenDiff(want, got), nil
		}
		res := harness.RunScenario(context.Background(), cfg, run.pair.Scenario, run.pair.Model)
		stop()
		for _, f := range res.Findings {
			t.Log(f)
		}
		assert.Equal(t, harness.StatusPass, res.Status, "%s: %s", res.Name(), res.Reason)
		assert.Equal(t, len(run.goldens), seen, "%s: golden files compared", res.Name())
	}
}
