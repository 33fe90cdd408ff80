package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --fail-fast stops at the first failed run: basic/plain-text's runs go
// in matrix order, one at a time, against goldens where its second
// column's transcript is wrong, so the first run passes, the second fails and no other runs.
// Without the flag the same selection runs whole.
func TestFailFastStopsAtTheFirstFailedRun(t *testing.T) {
	const id = "basic/plain-text"
	goldens := t.TempDir()
	src := filepath.Join(root, "goldens", id)
	require.NoError(t, os.CopyFS(filepath.Join(goldens, id), os.DirFS(src)))
	// The matrix's second column is openai-responses (scenarios/columns.yaml).
	require.NoError(t, os.WriteFile(filepath.Join(goldens, id, "openai", "gpt-5", "transcript.json"), []byte("{}\n"), 0o644))
	args := []string{"run", "--scenarios", filepath.Join(root, "scenarios"), "--cassettes", filepath.Join(root, "cassettes"),
		"--goldens", goldens, "--report-dir", "", "-p", "1", id}

	code, all, _ := conform(t, args...)
	require.Equal(t, exitFailed, code, all)
	assert.Contains(t, all, "[openai:gpt-5]", "the failure is reported")
	assert.NotContains(t, all, "--fail-fast")
	passed, failed := counts(t, all)
	assert.Greater(t, passed, 2, "the whole selection runs without the flag:\n%s", all)
	assert.Equal(t, 1, failed, all)

	code, out, _ := conform(t, append([]string{"run", "--fail-fast"}, args[1:]...)...)
	require.Equal(t, exitFailed, code, out)
	assert.Contains(t, out, "1 passed, 1 failed, 0 skipped", out)
	assert.Contains(t, out, "[openai:gpt-5]", "the failure is reported")
	assert.Contains(t, out, "stopped at the first failed run", out)
	assert.Contains(t, out, "of "+strconv.Itoa(passed+1)+" selected runs not run", out)
}

// counts reads "N passed, N failed, N skipped" from out.
func counts(t *testing.T, out string) (passed, failed int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, \d+ skipped`).FindStringSubmatch(out)
	require.NotNil(t, m, "no counts in:\n%s", out)
	passed, _ = strconv.Atoi(m[1])
	failed, _ = strconv.Atoi(m[2])
	return passed, failed
}
