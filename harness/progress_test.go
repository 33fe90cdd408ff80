package harness_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
)

// Config.Progress hears of every run once, as it ends, counting up to the
// total, never two calls at once.
func TestRunProgress(t *testing.T) {
	var dones []int
	seen := map[string]harness.Status{}
	busy := false
	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: filepath.Join("..", "scenarios"), CassetteDir: filepath.Join("..", "cassettes"), GoldenDir: filepath.Join("..", "goldens"),
		IDs: []string{"basic/plain-text", "basic/system-prompt-one"}, Models: []string{"anthropic", "openai"}, Parallel: 4,
		Factories: factories(), Faults: faults.FromSpec,
		Progress: func(done, total int, r *harness.ScenarioResult) {
			assert.False(t, busy, "calls overlap")
			busy = true
			defer func() { busy = false }()
			dones = append(dones, done)
			assert.Equal(t, 6, total)
			seen[r.Name()] = r.Status
		},
	})
	require.NoError(t, err)
	require.Len(t, res.Runs, 6)
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, dones)
	want := map[string]harness.Status{}
	for _, r := range res.Runs {
		want[r.Name()] = r.Status
	}
	assert.Equal(t, want, seen)
}
