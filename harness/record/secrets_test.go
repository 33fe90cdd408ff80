package record_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
)

// TestCommittedFilesHoldNoSecrets fails on any file under the committed
// cassettes/, goldens/ and reports/ that contains something shaped like
// an API key (sk-…, sk-ant-…, AIza…, Bearer …), or one of the keys in
// this process's environment.
func TestCommittedFilesHoldNoSecrets(t *testing.T) {
	var keys []string
	for _, name := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY"} {
		if v := os.Getenv(name); v != "" {
			keys = append(keys, v)
		}
	}
	for _, dir := range []string{"cassettes", "goldens", "reports"} {
		root := filepath.Join("..", "..", dir)
		if _, err := os.Stat(root); os.IsNotExist(err) {
			t.Logf("%s does not exist; nothing to scan", root)
			continue
		}
		leaks, err := record.ScanDir(root, keys...)
		require.NoError(t, err)
		for _, l := range leaks {
			t.Errorf("secret in a committed file: %s", l)
		}
	}
}

func TestScanDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "clean.yaml"), []byte("nothing here\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "b", "leak.json"), []byte("{\n\"k\": \"sk-proj-abcdefghijklmnopqrstuvwxyz\"\n}\n"), 0o644))
	leaks, err := record.ScanDir(dir)
	require.NoError(t, err)
	assert.Equal(t, []record.Leak{{File: filepath.Join(dir, "a", "b", "leak.json"), Line: 2, Kind: "an OpenAI or Anthropic key (sk-…)", Redacted: "sk-p…"}}, leaks)

	leaks, err = record.ScanDir(filepath.Join(dir, "missing"))
	assert.NoError(t, err)
	assert.Empty(t, leaks)
}
