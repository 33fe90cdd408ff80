package replay_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

// TestLoadEmptyCassette: a cassette file with no interaction — empty,
// blank, only the provenance header, or a document without interactions —
// is a load error naming the file, not a player that later answers every
// request with a misleading mismatch.
func TestLoadEmptyCassette(t *testing.T) {
	header := "# metis cassette provenance\n# scenario: basic/plain-text\n# provider: anthropic\n# model: anthropic:claude-sonnet-4-6\n# source: emulator\n# recorded_at: 2026-05-01T12:00:00Z\n# metis_version: v0.1.0-dev\n---\n"
	for name, content := range map[string]string{
		"empty":             "",
		"blank":             "\n  \n",
		"header only":       header,
		"no interactions":   header + "version: 2\ninteractions: []\n",
		"version only":      "version: 2\n",
		"null interactions": "version: 2\ninteractions:\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			p, err := replay.Load(path)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.True(t, errors.Is(err, replay.ErrEmptyCassette), "%v", err)
			assert.False(t, errors.Is(err, replay.ErrNoCassette), "an empty cassette is not a missing one")
			assert.Contains(t, err.Error(), path)
		})
	}
}
