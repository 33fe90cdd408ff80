package harness_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
)

func TestRunsCarryTheirCassettesSource(t *testing.T) {
	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: "../scenarios", CassetteDir: "../cassettes", GoldenDir: "../goldens",
		Factories: factories(), IDs: []string{"basic/plain-text", "history/orphan-tool-result"},
	})
	require.NoError(t, err)
	require.NotEmpty(t, res.Runs)
	for _, r := range res.Runs {
		require.Equal(t, harness.StatusPass, r.Status, "%s: %s", r.Name(), r.Reason)
		want := "emulator"
		if r.ID == "history/orphan-tool-result" {
			want = "" // refused before the wire: no cassette replayed
		}
		assert.Equal(t, want, r.Source, r.Name())
	}
	assert.Contains(t, res.Summary(), "by cassette source: emulator ")
	assert.Contains(t, res.Summary(), "; no cassette ")
}

func TestCountsBySource(t *testing.T) {
	res := &harness.Result{Runs: []harness.ScenarioResult{
		{Source: "emulator", Status: harness.StatusPass},
		{Source: "imported", Status: harness.StatusFail},
		{Source: "emulator", Status: harness.StatusSkip},
		{Source: "", Status: harness.StatusPass},
		{Source: "imported", Status: harness.StatusPass},
		{Source: harness.SourceMixed, Status: harness.StatusPass},
	}}
	if diff := cmp.Diff([]harness.SourceCount{
		{Source: "imported", Passed: 1, Failed: 1},
		{Source: "emulator", Passed: 1, Skipped: 1},
		{Source: "mixed", Passed: 1},
		{Source: "", Passed: 1},
	}, res.CountsBySource()); diff != "" {
		t.Errorf("res.CountsBySource() mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "by cassette source: imported 2 (1 passed, 1 failed); emulator 2 (1 passed, 1 skipped); mixed 1 (1 passed); no cassette 1 (1 passed)", res.SourceSummary())
	assert.Empty(t, (&harness.Result{Runs: []harness.ScenarioResult{{Status: harness.StatusPass}}}).SourceSummary(),
		"no source line when nothing replayed a cassette")
}
