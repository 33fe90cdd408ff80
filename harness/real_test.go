package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
)

// TestImportedCassetteCannotBeHalfUsed replays a two-turn real-traffic
// scenario cut after its first call: with endpoint matching, the second
// recorded interaction never requested is an error, not a warning.
func TestImportedCassetteCannotBeHalfUsed(t *testing.T) {
	data, err := os.ReadFile("../scenarios/real/openai-chat/stream-tool-round-trip.yaml")
	require.NoError(t, err)
	cut, _, ok := strings.Cut(string(data), "  - tool_result:")
	require.True(t, ok)
	dir := t.TempDir()
	path := filepath.Join(dir, "real", "openai-chat", "stream-tool-round-trip.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(cut), 0o644))

	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: dir, CassetteDir: "../cassettes", NoGoldens: true, Factories: factories(),
	})
	require.NoError(t, err)
	require.Len(t, res.Runs, 1)
	run := res.Runs[0]
	assert.Equal(t, harness.StatusFail, run.Status)
	assert.Equal(t, "imported", run.Source)
	require.NotEmpty(t, run.Findings)
	f := run.Findings[0]
	assert.Equal(t, "cassette/unused", f.ID)
	assert.Equal(t, harness.LevelError, f.Level)
	assert.Contains(t, f.Message, "1 recorded interaction(s) were never requested; the run made fewer calls than the imported traffic holds")
}

// TestImportedCassetteRefusesAnotherMode replays a real streamed exchange
// with a non-streaming call: the endpoint matches, the mode does not.
func TestImportedCassetteRefusesAnotherMode(t *testing.T) {
	data, err := os.ReadFile("../scenarios/real/vllm/stream-text.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "real", "vllm", "stream-text.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), "call: {stream: true}", "call: {}", 1)), 0o644))

	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: dir, CassetteDir: "../cassettes", NoGoldens: true, Factories: factories(),
	})
	require.NoError(t, err)
	run := res.Runs[0]
	assert.Equal(t, harness.StatusFail, run.Status)
	assert.Contains(t, run.Reason, "no unserved interaction matches POST")
	assert.Contains(t, run.Reason, "+stream: false")
}
