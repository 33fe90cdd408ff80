package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
)

// TestBrokenCassetteFailsTheRunNamingTheFile: an empty cassette, or one
// that does not parse, fails its run with an error naming the file — no
// panic, no misleading request mismatch.
func TestBrokenCassetteFailsTheRunNamingTheFile(t *testing.T) {
	for name, content := range map[string]string{
		"empty":          "",
		"header only":    "# metis cassette provenance\n# scenario: basic/hello\n# provider: anthropic\n# source: emulator\n# recorded_at: 2026-05-01T12:00:00Z\n# metis_version: v0.1.0-dev\n---\n",
		"not a cassette": "interactions: {oops\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "anthropic", "basic", "hello.yaml")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			cfg := replayConfig(t)
			cfg.CassetteDir = dir
			res, err := harness.Run(context.Background(), cfg)
			require.NoError(t, err)
			run := res.Runs[0]
			assert.Equal(t, harness.StatusFail, run.Status)
			assert.Contains(t, run.Reason, path)
			assert.NotContains(t, run.Reason, "panic")
			assert.NotContains(t, run.Reason, "no recorded request matches")
		})
	}
}
