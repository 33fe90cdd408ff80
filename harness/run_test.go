package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
)

func replayConfig(t *testing.T) harness.Config {
	t.Helper()
	return harness.Config{
		ScenarioDir: "testdata/e2e/scenarios",
		CassetteDir: "testdata/e2e/cassettes",
		GoldenDir:   "testdata/e2e/goldens",
		Factories:   factories(),
	}
}

// TestRunReplaysHandWrittenCassette runs the whole pipeline — load, lint,
// session, adapter, replay, stream checks, expectations, goldens — on a
// cassette written by hand.
func TestRunReplaysHandWrittenCassette(t *testing.T) {
	res, err := harness.Run(context.Background(), replayConfig(t))
	require.NoError(t, err)
	require.Len(t, res.Runs, 1)
	run := res.Runs[0]
	for _, f := range run.Findings {
		t.Log(f)
	}
	require.Equal(t, harness.StatusPass, run.Status, run.Reason)
	assert.Equal(t, "basic/hello", run.ID)
	assert.Equal(t, "anthropic:claude-sonnet-4-6", run.Model)
	require.Len(t, run.Steps, 2)
	var names []string
	for _, c := range run.Steps[1].Checks {
		assert.True(t, c.OK, c.Name+": "+c.Message)
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"stream_invariants", "backoff", "error", "stop_reason", "blocks", "attempts", "events", "event_chunks", "text_contains"}, names); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
	assert.Empty(t, run.Findings, "no unused interactions, golden diffs or stream violations")
	assert.Equal(t, "1 passed, 0 failed, 0 skipped", res.Summary())
}

func TestRunGoldenTranscript(t *testing.T) {
	// The golden transcript holds the hand-written cassette's answer with
	// deterministic ids and times.
	data, err := os.ReadFile("testdata/e2e/goldens/basic/hello/anthropic/claude-sonnet-4-6/transcript.json")
	require.NoError(t, err)
	var msgs []struct {
		ID        string          `json:"id"`
		Role      string          `json:"role"`
		CreatedAt string          `json:"created_at"`
		Content   json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(data, &msgs))
	require.Len(t, msgs, 2)
	assert.Equal(t, "msg_1", msgs[0].ID)
	assert.Equal(t, "user", msgs[0].Role)
	assert.Equal(t, "2026-01-01T00:00:02Z", msgs[0].CreatedAt)
	assert.Equal(t, "msg_2", msgs[1].ID)
	assert.JSONEq(t, `[{"type":"text","text":"Hello there!"}]`, string(msgs[1].Content))
}

func TestRunMissingCassette(t *testing.T) {
	cfg := replayConfig(t)
	cfg.CassetteDir = t.TempDir()
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	run := res.Runs[0]
	assert.Equal(t, harness.StatusFail, run.Status)
	want := "no cassette " + filepath.Join(cfg.CassetteDir, "anthropic", "basic", "hello.yaml") + ": `conform run --record=missing` records it against the emulator, `record` against the live API"
	assert.Equal(t, want, run.Reason)

	cfg.SkipMissingCassettes = true
	res, err = harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, harness.StatusSkip, res.Runs[0].Status)
	assert.Equal(t, "0 passed, 0 failed, 1 skipped", lastLine(res.Summary()))
}

func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	return lines[len(lines)-1]
}

func TestRunGoldenDiff(t *testing.T) {
	cfg := replayConfig(t)
	dir := t.TempDir()
	src := "testdata/e2e/goldens/basic/hello/anthropic/claude-sonnet-4-6"
	dst := filepath.Join(dir, "basic/hello/anthropic/claude-sonnet-4-6")
	require.NoError(t, os.MkdirAll(dst, 0o755))
	for _, name := range []string{"transcript.json", "requests.json", "events.json"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		require.NoError(t, err)
		if name == "events.json" {
			data = []byte(strings.Replace(string(data), `"text":"Hello"`, `"text":"Howdy"`, 1))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dst, name), data, 0o644))
	}
	cfg.GoldenDir = dir
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	run := res.Runs[0]
	assert.Equal(t, harness.StatusFail, run.Status)
	require.Len(t, run.Findings, 1)
	f := run.Findings[0]
	assert.Equal(t, "golden/events.json", f.ID)
	assert.Contains(t, f.Diff, "-  {\"step\":1,\"type\":\"text.delta\",\"index\":0,\"text\":\"Howdy\"},\n")
	assert.Contains(t, f.Diff, "+  {\"step\":1,\"type\":\"text.delta\",\"index\":0,\"text\":\"Hello\"},\n")

	// --update rewrites only the file that differs.
	before, err := os.Stat(filepath.Join(dst, "transcript.json"))
	require.NoError(t, err)
	cfg.UpdateGoldens = true
	res, err = harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, harness.StatusPass, res.Runs[0].Status, res.Runs[0].Reason)
	after, err := os.Stat(filepath.Join(dst, "transcript.json"))
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime())
	got, err := os.ReadFile(filepath.Join(dst, "events.json"))
	require.NoError(t, err)
	assert.Contains(t, string(got), `"text":"Hello"`)
}

func TestRunInjectWithoutFaults(t *testing.T) {
	sc, err := scenario.Parse("inline.yaml", []byte(`
id: inline
title: inject with no fault layer
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - inject: {status: 429}
  - call: {}
`))
	require.NoError(t, err)
	cfg := replayConfig(t)
	cfg.NoGoldens = true
	res := harness.RunScenario(context.Background(), cfg, sc, "anthropic:claude-sonnet-4-6")
	assert.Equal(t, harness.StatusFail, res.Status)
	assert.Equal(t, "step 3 (call): fault injection not available (Config.Faults is nil)", res.Reason)
}

func TestRunSkipsModelLackingCapability(t *testing.T) {
	reg, err := adapters.LoadRegistry(strings.NewReader(`
adapters:
  anthropic: {type: anthropic, api_key: sk-test-FAKE}
models:
  anthropic:claude-sonnet-4-6:
    capabilities: {supports_images: false}
`), "test-models.yaml")
	require.NoError(t, err)
	sc, err := scenario.Parse("inline.yaml", []byte(`
id: inline
title: needs images
requires: [images]
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - call: {}
`))
	require.NoError(t, err)
	cfg := replayConfig(t)
	cfg.Registry = reg
	res := harness.RunScenario(context.Background(), cfg, sc, "anthropic:claude-sonnet-4-6")
	assert.Equal(t, harness.StatusSkip, res.Status)
	assert.Equal(t, "anthropic:claude-sonnet-4-6 does not declare images", res.Reason)
}

func TestRunWithoutFactories(t *testing.T) {
	cfg := replayConfig(t)
	cfg.Factories = nil
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, harness.StatusFail, res.Runs[0].Status)
	assert.Contains(t, res.Runs[0].Reason, "Factories is empty")
}
