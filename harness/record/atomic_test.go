package record_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
)

// TestRecordIsAllOrNothingPerScenario: a scenario talking to three
// providers whose recording fails for one of them replaces none of the
// three cassettes and leaves no temporary file, whether the gemini
// cassette cannot be staged (its directory is a file) or cannot be put
// in place once the others are (its path is a directory, which cannot be
// moved aside), so the cassettes already renamed are undone.
func TestRecordIsAllOrNothingPerScenario(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block func(t *testing.T, cassettes string) map[string]string // makes gemini's cassette fail; the files it wrote
	}{
		{"the cassette's directory is a file", func(t *testing.T, cassettes string) map[string]string {
			blocker := filepath.Join(cassettes, "gemini", "swap")
			require.NoError(t, os.MkdirAll(filepath.Dir(blocker), 0o755))
			require.NoError(t, os.WriteFile(blocker, []byte("not a directory\n"), 0o644))
			return map[string]string{blocker: "not a directory\n"}
		}},
		{"the cassette is a directory", func(t *testing.T, cassettes string) map[string]string {
			inside := filepath.Join(cassettes, "gemini", "swap", "six-turn-alternating.yaml", "not-a-cassette")
			require.NoError(t, os.MkdirAll(filepath.Dir(inside), 0o755))
			require.NoError(t, os.WriteFile(inside, []byte("a file in the way\n"), 0o644))
			return map[string]string{inside: "a file in the way\n"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cassettes := filepath.Join(dir, "cassettes")
			old := map[string]string{}
			for _, prov := range []string{"anthropic", "openai"} {
				p := filepath.Join(cassettes, prov, "swap", "six-turn-alternating.yaml")
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte("# the old "+prov+" cassette\n"), 0o644))
				old[p] = "# the old " + prov + " cassette\n"
			}
			for p, data := range tc.block(t, cassettes) {
				old[p] = data
			}

			var out bytes.Buffer
			cfg := emulatorConfig(dir, &out)
			cfg.ScenarioDir = scenarioDir
			cfg.IDs = []string{"swap/six-turn-alternating"}
			cfg.Force = true
			sum, err := record.Run(context.Background(), cfg)
			require.NoError(t, err, out.String())

			require.Len(t, sum.Runs, 1)
			r := sum.Runs[0]
			assert.Equal(t, record.ActionFailed, r.Action, out.String())
			assert.Contains(t, r.Reason, "gemini")
			assert.Empty(t, r.Cassettes, "nothing was recorded")
			if diff := cmp.Diff(old, snapshot(t, cassettes)); diff != "" {
				t.Errorf("every cassette byte-identical, no temporary file left (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecordCleansStaleTempFiles: temporary files a killed run left in
// cassettes/ are removed when the next run starts; a cassette moved
// aside mid-commit comes back.
func TestRecordCleansStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "cassettes", "anthropic", "basic")
	require.NoError(t, os.MkdirAll(base, 0o755))
	staged := filepath.Join(base, ".plain-text.yaml.tmp-123456")
	require.NoError(t, os.WriteFile(staged, []byte("half a cassette"), 0o644))
	// A cassette moved aside by a commit that was killed before the new
	// one took its place.
	aside := filepath.Join(base, ".other.yaml.tmp-old-42")
	require.NoError(t, os.WriteFile(aside, []byte("# the old other cassette\n"), 0o644))
	keep := filepath.Join(base, "notes.tmp.md") // not ours: left alone
	require.NoError(t, os.WriteFile(keep, []byte("x"), 0o644))

	var out bytes.Buffer
	cfg := emulatorConfig(dir, &out)
	cfg.IDs = []string{"basic/plain-text"}
	cfg.Models = []string{"anthropic"}
	_, err := record.Run(context.Background(), cfg)
	require.NoError(t, err, out.String())

	assert.NoFileExists(t, staged)
	assert.NoFileExists(t, aside)
	data, err := os.ReadFile(filepath.Join(base, "other.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "# the old other cassette\n", string(data))
	assert.FileExists(t, keep)
	assert.FileExists(t, filepath.Join(base, "plain-text.yaml"))
	assert.Contains(t, out.String(), "removed "+staged)
}
