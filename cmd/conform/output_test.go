package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A golden diff prints a line naming the run, the scenario's file:line
// and the golden, the diff, and the exact command that accepts it — which,
// run, rewrites that golden alone and makes the run green. -v prints a line
// per run too.
func TestRunOutputLeadsWithTheFailure(t *testing.T) {
	goldens := filepath.Join(t.TempDir(), "goldens")
	require.NoError(t, os.CopyFS(filepath.Join(goldens, "basic", "plain-text"), os.DirFS(filepath.Join(root, "goldens", "basic", "plain-text"))))
	altered := filepath.Join(goldens, "basic", "plain-text", "openai", "gpt-5", "transcript.json")
	other := filepath.Join(goldens, "basic", "plain-text", "anthropic", "claude-sonnet-4-6", "transcript.json")
	data, err := os.ReadFile(altered)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(altered, []byte(strings.Replace(string(data), "how are you?", "who are you?", 1)), 0o644))
	otherBefore, err := os.ReadFile(other)
	require.NoError(t, err)

	args := []string{"run", "basic/plain-text", "--model", "openai:gpt-5", "--model", "anthropic",
		"--scenarios", filepath.Join(root, "scenarios"), "--cassettes", filepath.Join(root, "cassettes"), "--goldens", goldens,
		"--report-dir", ""}
	code, out, errs := conform(t, args...)
	require.Equal(t, exitFailed, code, errs)
	dirs := " --scenarios ../../scenarios --cassettes ../../cassettes --goldens " + goldens
	rerun := "go run ./cmd/conform run basic/plain-text --model openai:gpt-5"
	want := "FAIL basic/plain-text [openai:gpt-5] ../../scenarios/basic/plain-text.yaml:2: golden/transcript.json: differs from " + altered + " (-want +got)\n" +
		"     @@ line 20 @@\n" +
		"          \"content\": [\n" +
		"            {\n" +
		"              \"type\": \"text\",\n" +
		"     -        \"text\": \"Hello there, who are you?\"\n" +
		"     +        \"text\": \"Hello there, how are you?\"\n" +
		"            }\n" +
		"          ],\n" +
		"          \"metadata\": {\n" +
		"     accept the new golden: " + rerun + " --update" + dirs + "\n" +
		"all of a run's checks: " + rerun + dirs + " -v\n" +
		"\n" +
		"by cassette source: emulator 2 (1 passed, 1 failed)\n" +
		"1 passed, 1 failed, 0 skipped\n" +
		"reports: none written (--report-dir is empty)\n"
	assert.Equal(t, want, out)

	code, verbose, _ := conform(t, append(args, "-v")...)
	assert.Equal(t, exitFailed, code)
	assert.True(t, strings.HasPrefix(verbose, "ok   basic/plain-text [anthropic:claude-sonnet-4-6]\nFAIL basic/plain-text [openai:gpt-5]\n"), verbose)
	assert.Contains(t, verbose, "  step 2 (call) ok: stop_reason \n")
	assert.Contains(t, verbose, "  re-run: "+rerun+dirs+"\n")

	// The suggested command, as a shell would split it.
	line := regexp.MustCompile(`(?m)^     accept the new golden: (.*)$`).FindStringSubmatch(out)
	require.NotNil(t, line)
	argv, err := shlex.Split(line[1])
	require.NoError(t, err)
	require.Equal(t, []string{"go", "run", "./cmd/conform"}, argv[:3])
	code, out, errs = conform(t, append(argv[3:], "--report-dir", "")...)
	require.Equal(t, exitOK, code, out+errs)
	after, err := os.ReadFile(altered)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(after), "the golden is accepted as the run produces it")
	otherAfter, err := os.ReadFile(other)
	require.NoError(t, err)
	assert.Equal(t, string(otherBefore), string(otherAfter), "another column's golden is left alone")
	code, out, _ = conform(t, args...)
	assert.Equal(t, exitOK, code, out)
	assert.Equal(t, "by cassette source: emulator 2 (2 passed)\n2 passed, 0 failed, 0 skipped\nreports: none written (--report-dir is empty)\n", out,
		"a green run prints its counts, not a line per run")
}
