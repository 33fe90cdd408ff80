package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validate applies exactly the lints run applies: for each broken suite
// under testdata/lint, `conform run` refuses to start with some problems,
// and `conform validate` (of the directory, or of its files) reports the
// same problems.
func TestValidateRunsTheLintsRunRuns(t *testing.T) {
	cases, err := filepath.Glob("testdata/lint/*")
	require.NoError(t, err)
	require.Len(t, cases, 3)
	want := map[string][]string{ // the rule each case breaks, by hand
		"id-path":        {"[id-path]"},
		"duplicate-id":   {"[duplicate-id]"},
		"undefined-tool": {"[undefined-tool]", "[unknown-model]"},
	}
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			scenarios := filepath.Join(dir, "scenarios")
			code, out, errs := conform(t, "run", "--scenarios", scenarios, "--report-dir", "")
			require.Equal(t, exitUsage, code, out)
			runProblems := lines(errs)
			require.NotEmpty(t, runProblems)
			for _, rule := range want[filepath.Base(dir)] {
				assert.True(t, slices.ContainsFunc(runProblems, func(l string) bool { return strings.HasSuffix(l, rule) }), "run reports %s: %q", rule, runProblems)
			}

			code, out, _ = conform(t, "validate", "--scenarios", scenarios)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, runProblems, lines(out), "validate of the directory")

			files, err := filepath.Glob(filepath.Join(scenarios, "*", "*.yaml"))
			require.NoError(t, err)
			code, out, _ = conform(t, append([]string{"validate", "--scenarios", scenarios}, files...)...)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, runProblems, lines(out), "validate of the files")
		})
	}
}

// The id-path lint also holds for a file validated on its own, outside
// the scenario directory: its id must match the end of its path.
func TestValidateFileOutsideScenarioDir(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "greet", "hello.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	src, err := os.ReadFile("testdata/lint/id-path/scenarios/greet/hello.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, src, 0o644))
	code, out, _ := conform(t, "validate", "--scenarios", filepath.Join(root, "scenarios"), bad)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, bad+`:2:5: id "greet/hi" does not match the file's path; want "greet/hello" [id-path]`+"\n", out)
}

// validate warns about the cassettes and goldens a new scenario lacks, and
// stays green (exit 0).
func TestValidateWarnsAboutMissingCassettesAndGoldens(t *testing.T) {
	tmp := t.TempDir()
	scenarios := newScenario(t, tmp)
	code, out, errs := conform(t, "validate", "--scenarios", scenarios, "--cassettes", filepath.Join(tmp, "cassettes"), "--goldens", filepath.Join(tmp, "goldens"))
	require.Equal(t, exitOK, code, errs)
	file := filepath.Join(scenarios, "greet", "hello.yaml")
	for _, w := range []string{
		file + ":2:5: warning: anthropic:claude-sonnet-4-6 has no cassette " + filepath.Join(tmp, "cassettes", "anthropic", "greet", "hello.yaml") + " [missing-cassette]",
		file + ":2:5: warning: anthropic:claude-sonnet-4-6 has no golden transcript.json, requests.json, events.json under " + filepath.Join(tmp, "goldens", "greet", "hello", "anthropic", "claude-sonnet-4-6") + " [missing-golden]",
		file + ":2:5: warning: openai:gpt-5 has no cassette " + filepath.Join(tmp, "cassettes", "openai", "greet", "hello.yaml") + " [missing-cassette]",
	} {
		assert.Contains(t, out, w+"\n")
	}
	assert.True(t, strings.HasSuffix(out, "1 file(s) valid, 4 warning(s)\n"), out)

	// The committed suite has every cassette and golden it needs.
	code, out, _ = conform(t, append([]string{"validate"}, suiteArgs()...)...)
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `^\d+ file\(s\) valid, 0 warning\(s\)\n$`, out)
}

// --record=missing makes a new scenario green in one command: it records
// its cassettes against the emulator and writes its goldens; a second
// plain run then passes, and changes nothing.
func TestRecordMissingMakesANewScenarioGreen(t *testing.T) {
	tmp := t.TempDir()
	scenarios := newScenario(t, tmp)
	args := []string{"run", "--scenarios", scenarios, "--cassettes", filepath.Join(tmp, "cassettes"), "--goldens", filepath.Join(tmp, "goldens"), "--report-dir", ""}

	code, out, _ := conform(t, args...)
	require.Equal(t, exitFailed, code, "without cassettes the new scenario fails")
	assert.Contains(t, out, "`conform run --record=missing` records it against the emulator")

	code, out, errs := conform(t, append(args, "--record=missing")...)
	require.Equal(t, exitOK, code, "%s\n%s", out, errs)
	for _, model := range []string{"anthropic:claude-sonnet-4-6", "openai:gpt-5"} {
		prov, name, _ := strings.Cut(model, ":")
		cassette := filepath.Join(tmp, "cassettes", prov, "greet", "hello.yaml")
		assert.Contains(t, out, "record greet/hello ["+model+"]: wrote "+cassette+" (against the emulator)\n")
		data, err := os.ReadFile(cassette)
		require.NoError(t, err)
		assert.Contains(t, string(data), "\n# source: emulator\n")
		gdir := filepath.Join(tmp, "goldens", "greet", "hello", prov, name)
		assert.Contains(t, out, "new goldens for greet/hello ["+model+"]: transcript.json, requests.json, events.json in "+gdir+"\n")
		for _, f := range []string{"transcript.json", "requests.json", "events.json"} {
			assert.FileExists(t, filepath.Join(gdir, f))
		}
	}
	assert.Contains(t, out, "\n2 passed, 0 failed, 0 skipped\n")

	before := snapshot(t, tmp)
	code, out, _ = conform(t, args...)
	assert.Equal(t, exitOK, code, out)
	code, out, _ = conform(t, append(args, "--record=missing")...)
	assert.Equal(t, exitOK, code, out)
	assert.NotContains(t, out, "record ", "nothing left to record")
	assert.NotContains(t, out, "new goldens")
	assert.Equal(t, before, snapshot(t, tmp), "existing cassettes and goldens are left alone")

	code, _, errs = conform(t, append(args, "--record=all")...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `conform run: --record "all": want one of none, missing`)
}

// A scenario whose run fails keeps no golden: --record=missing writes the
// goldens of passing runs only.
func TestRecordMissingWritesNoGoldenForAFailingRun(t *testing.T) {
	tmp := t.TempDir()
	scenarios := newScenario(t, tmp)
	file := filepath.Join(scenarios, "greet", "hello.yaml")
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(src), "text_contains: Hello", "text_contains: Goodbye", 1)), 0o644))
	code, out, _ := conform(t, "run", "--record=missing", "--scenarios", scenarios, "--cassettes", filepath.Join(tmp, "cassettes"), "--goldens", filepath.Join(tmp, "goldens"), "--report-dir", "")
	assert.Equal(t, exitFailed, code, out)
	assert.NotContains(t, out, "new goldens")
	assert.NoDirExists(t, filepath.Join(tmp, "goldens"))
}

// newScenario writes a new two-model scenario, as a user adding one would,
// under dir/scenarios and returns that directory.
func newScenario(t *testing.T, dir string) string {
	t.Helper()
	scenarios := filepath.Join(dir, "scenarios")
	require.NoError(t, os.MkdirAll(filepath.Join(scenarios, "greet"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(scenarios, "greet", "hello.yaml"), []byte(`# yaml-language-server: $schema=../schema.json
id: greet/hello
title: A greeting, streamed
models: [anthropic:claude-sonnet-4-6, openai:gpt-5]
steps:
  - user: Say hello.
  - call:
      stream: true
      reply: {text: Hello there.}
    expect: {stop_reason: end_turn, text_contains: Hello}
`), 0o644))
	return scenarios
}

// snapshot maps every file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			data, err := os.ReadFile(p)
			out[p] = string(data)
			return err
		}
		return err
	}))
	return out
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
