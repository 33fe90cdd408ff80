package record_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
)

// TestRecordLeavesImportedTrafficAlone checks that record, even with
// --force, writes neither the cassettes of scenarios tagged imported nor
// any existing cassette whose provenance says imported.
func TestRecordLeavesImportedTrafficAlone(t *testing.T) {
	dir := t.TempDir()
	scenarios := filepath.Join(dir, "scenarios")
	require.NoError(t, os.MkdirAll(filepath.Join(scenarios, "basic"), 0o755))
	plain, err := os.ReadFile(filepath.Join(scenarioDir, "basic", "plain-text.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(scenarios, "basic", "plain-text.yaml"), plain, 0o644))

	// An imported cassette where basic/plain-text's anthropic run records.
	imported := filepath.Join(dir, "cassettes", "anthropic", "basic", "plain-text.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(imported), 0o755))
	real, err := os.ReadFile(filepath.Join("..", "..", "cassettes", "anthropic", "real", "anthropic", "stream-thinking-signature.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(imported, real, 0o644))

	var out bytes.Buffer
	cfg := emulatorConfig(dir, &out)
	cfg.ScenarioDir, cfg.Force = scenarios, true
	cfg.Models = []string{"anthropic"}
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err, out.String())
	assert.Zero(t, sum.Count(record.ActionRecorded), out.String())
	assert.Contains(t, out.String(), "skipped: its cassette holds imported real traffic (testdata/recordings/anthropic/stream-thinking-signature); change it with `record import`")
	after, err := os.ReadFile(imported)
	require.NoError(t, err)
	assert.Equal(t, real, after)

	// The committed real-traffic scenarios are skipped by their tag.
	out.Reset()
	cfg = emulatorConfig(dir, &out)
	cfg.ScenarioDir = scenarioDir
	cfg.Force, cfg.IDs = true, []string{"real/vllm/*"}
	sum, err = record.Run(context.Background(), cfg)
	require.NoError(t, err, out.String())
	assert.Zero(t, sum.Count(record.ActionRecorded))
	assert.Equal(t, 2, sum.Count(record.ActionSkipped), out.String())
	assert.Contains(t, out.String(), "its cassettes are imported real traffic (tag imported)")
	assert.NoDirExists(t, filepath.Join(dir, "cassettes", "vllm"))
}

// TestRecordLeavesEditedCassettesAlone checks that record, even with
// --force, skips a scenario tagged edited (its cassettes carry a real
// server's quirk by hand) and writes none of its cassettes.
func TestRecordLeavesEditedCassettesAlone(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	cfg := emulatorConfig(dir, &out)
	cfg.ScenarioDir = scenarioDir
	cfg.Force, cfg.IDs = true, []string{"quirks/vllm-stop-reason-forms", "quirks/chat-tool-calls-without-index"}
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err, out.String())
	assert.Zero(t, sum.Count(record.ActionRecorded), out.String())
	assert.Equal(t, 2, sum.Count(record.ActionSkipped), out.String())
	assert.Contains(t, out.String(), "its cassettes were edited by hand to carry a real server's quirk (tag edited)")
	assert.NoDirExists(t, filepath.Join(dir, "cassettes"))
}
