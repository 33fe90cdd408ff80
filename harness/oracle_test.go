package harness_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestOracleVerdicts runs the hand-written basic/hello cassette under
// each oracle: a failing regression check fails conform run's mode and
// the regression alone, not certification's; a failing contract check
// fails all and the contract alone, not the regression alone; a
// scenario marked oracle: regression is skipped under the contract
// alone.
func TestOracleVerdicts(t *testing.T) {
	const head = `id: basic/hello
title: One streamed greeting
description: The hand-written cassette, with expectations of either oracle.
requires: [streaming]
models: [anthropic:claude-sonnet-4-6]
system: Be brief.
`
	tests := []struct {
		name             string
		yaml             string
		all, contract    harness.Status
		regression       harness.Status
		contractFailures []string // failed check names under the contract alone
	}{
		{"all hold", head + `steps:
  - user: Say hello.
  - call: {stream: true}
    expect: {stop_reason: end_turn, events: {text.delta: 2, message.complete: 1}}
`, harness.StatusPass, harness.StatusPass, harness.StatusPass, nil},
		{"a regression check fails: the chunking", head + `steps:
  - user: Say hello.
  - call: {stream: true}
    expect: {stop_reason: end_turn, events: {text.delta: 7, message.complete: 1}}
`, harness.StatusFail, harness.StatusPass, harness.StatusFail, nil},
		{"a regression check fails: the backoff", head + `steps:
  - user: Say hello.
  - call: {stream: true}
    expect: {waits: [1s]}
`, harness.StatusFail, harness.StatusPass, harness.StatusFail, nil},
		{"a contract check fails: the stop reason", head + `steps:
  - user: Say hello.
  - call: {stream: true}
    expect: {stop_reason: tool_use, waits: [1s]}
`, harness.StatusFail, harness.StatusFail, harness.StatusFail, []string{"stop_reason"}},
		{"a contract check fails: the content", head + `steps:
  - user: Say hello.
  - call: {stream: true}
    expect: {text_contains: Goodbye}
`, harness.StatusFail, harness.StatusFail, harness.StatusPass, []string{"text_contains"}},
		{"a regression scenario", head + `oracle: regression
steps:
  - user: Say hello.
  - call: {stream: true}
    expect: {stop_reason: end_turn}
`, harness.StatusPass, harness.StatusSkip, harness.StatusPass, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenario.Parse("hello.yaml", []byte(tt.yaml))
			require.NoError(t, err)
			for _, oracle := range scenario.RunOracles {
				cfg := replayConfig(t)
				cfg.NoGoldens, cfg.Oracle = true, oracle
				res := harness.RunScenario(context.Background(), cfg, sc, "anthropic:claude-sonnet-4-6")
				want := map[scenario.Oracle]harness.Status{
					scenario.OracleAll: tt.all, scenario.OracleContract: tt.contract, scenario.OracleRegression: tt.regression,
				}[oracle]
				assert.Equal(t, want, res.Status, "oracle %s: %s", oracle, res.Reason)
				var failed []string
				for _, st := range res.Steps {
					for _, c := range st.Checks {
						if oracle != scenario.OracleAll {
							assert.Equal(t, oracle, c.Oracle, "check %s under %s alone", c.Name, oracle)
						}
						if !c.OK {
							failed = append(failed, c.Name)
						}
					}
				}
				if oracle == scenario.OracleContract {
					assert.Equal(t, tt.contractFailures, failed)
				}
			}
		})
	}
	t.Run("regression skip reason", func(t *testing.T) {
		sc, err := scenario.Parse("hello.yaml", []byte(head+"oracle: regression\nsteps:\n  - user: Hi.\n"))
		require.NoError(t, err)
		cfg := replayConfig(t)
		cfg.NoGoldens, cfg.Oracle = true, scenario.OracleContract
		res := harness.RunScenario(context.Background(), cfg, sc, "anthropic:claude-sonnet-4-6")
		assert.Equal(t, check.RegressionSkipReason, res.Reason)
	})
}

// TestOracleGoldens: under the contract alone only the transcript's
// contract fields are compared, so requests.json and events.json goldens
// that differ (or are missing) fail conform run's mode only.
func TestOracleGoldens(t *testing.T) {
	for _, tt := range []struct {
		oracle scenario.Oracle
		want   harness.Status
	}{{scenario.OracleAll, harness.StatusFail}, {scenario.OracleContract, harness.StatusPass}} {
		cfg := replayConfig(t)
		cfg.Oracle = tt.oracle
		var compared []string
		cfg.Golden = func(path string, got []byte) (string, error) {
			compared = append(compared, path)
			if tt.oracle == scenario.OracleContract {
				return "", nil
			}
			return "a difference", nil
		}
		res, err := harness.Run(context.Background(), cfg)
		require.NoError(t, err)
		require.Len(t, res.Runs, 1)
		assert.Equal(t, tt.want, res.Runs[0].Status, res.Runs[0].Reason)
		want := 3
		if tt.oracle == scenario.OracleContract {
			want = 1
		}
		assert.Len(t, compared, want, "golden files compared under %s", tt.oracle)
	}
}

// TestOracleDefaultGoldenProjects: with the default Golden hook, the
// contract alone compares the projections of both transcripts, so the
// committed golden (which has provider_raw) still passes.
func TestOracleDefaultGoldenProjects(t *testing.T) {
	cfg := replayConfig(t)
	cfg.Oracle = scenario.OracleContract
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, res.Runs, 1)
	assert.Equal(t, harness.StatusPass, res.Runs[0].Status, res.Runs[0].Reason)
	assert.Empty(t, res.Runs[0].Findings)
}

// An oracle other than contract or regression is refused by the schema,
// naming the file, line and key.
func TestOracleKeyValidated(t *testing.T) {
	_, err := scenario.Parse("bad.yaml", []byte("id: b\ntitle: t\noracle: maybe\nsteps: [{user: hi}]\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.yaml:3")
	assert.Contains(t, err.Error(), "oracle")
	sc, err := scenario.Parse("ok.yaml", []byte("id: b\ntitle: t\noracle: contract\nsteps: [{user: hi}]\n"))
	require.NoError(t, err)
	assert.Equal(t, scenario.OracleContract, sc.Oracle)
}
