package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subcommands are conform's commands as a user types them.
var subcommands = [][]string{{"run"}, {"list"}, {"validate"}, {"emulate"}, {"record"}, {"record", "import"}, {"report", "merge"}, {"version"}}

// A bad flag prints the error, a blank line and the command's usage to
// stderr and exits 2, on every subcommand; --help prints the same usage to
// stdout and exits 0.
func TestBadFlagPrintsErrorAndUsage(t *testing.T) {
	for _, sub := range subcommands {
		name := "conform " + strings.Join(sub, " ")
		t.Run(name, func(t *testing.T) {
			code, out, errs := conform(t, append(sub, "--bogus")...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errs, name+": unknown flag: --bogus\n\nusage: "+name+" "), errs)

			code, help, errs := conform(t, append(sub, "--help")...)
			assert.Equal(t, exitOK, code)
			assert.Empty(t, errs)
			assert.True(t, strings.HasPrefix(help, "usage: "+name+" "), help)
			assert.Contains(t, help, "\nflags:\n")
			assert.Contains(t, help, "  -h, --help")
			_, _, bad := conform(t, append(sub, "--bogus")...)
			assert.Equal(t, help, strings.SplitN(bad, "\n\n", 2)[1], "the same usage text on both")

			code, help2, _ := conform(t, "help", sub[0])
			assert.Equal(t, exitOK, code)
			if len(sub) == 1 {
				assert.Equal(t, help, help2, "conform help CMD is CMD --help")
			}
		})
	}
}

func TestTopLevelUsage(t *testing.T) {
	code, out, errs := conform(t)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errs, "conform: no command given\n\nusage: conform <command>"), errs)
	for _, sub := range subcommands {
		assert.Contains(t, errs, "\n  "+sub[0]+" ", "usage lists %s", sub[0])
	}
	code, _, errs = conform(t, "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.True(t, strings.HasPrefix(errs, `conform: unknown command "frobnicate"`+"\n\nusage: conform <command>"), errs)
	code, out, _ = conform(t, "--help")
	assert.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(out, "usage: conform <command>"), out)
}

var versionLine = regexp.MustCompile(`^metis (\S+) \((revision ([0-9a-f]{40})(, modified)?|revision unknown)\) (go\S+)\n$`)

// `conform version` and `conform --version` print the module version,
// the VCS revision (here read from the checkout, as under go run) and the
// Go version.
func TestVersion(t *testing.T) {
	code, out, errs := conform(t, "version")
	require.Equal(t, exitOK, code, errs)
	m := versionLine.FindStringSubmatch(out)
	require.NotNil(t, m, "%q", out)
	assert.Equal(t, runtime.Version(), m[5])
	if head := gitHead(t); head != "" {
		assert.Equal(t, head, m[3], "the checkout's HEAD")
	}
	code, out2, _ := conform(t, "--version")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, out, out2)
}

// A binary built with VCS stamping reports the revision it was built
// from, and its module version is the pseudo-version go build derives.
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the conform binary")
	}
	head := gitHead(t)
	if fi, err := os.Stat(filepath.Join(root, ".git")); head == "" || err != nil || !fi.IsDir() {
		t.Skip("go build stamps a revision only in a git checkout whose .git is a directory (not in a worktree or an export)")
	}
	bin := filepath.Join(t.TempDir(), "conform")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir() // outside the checkout: the revision comes from the binary
		got, err := cmd.Output()
		require.NoError(t, err)
		m := versionLine.FindStringSubmatch(string(got))
		require.NotNil(t, m, "%q", got)
		assert.Equal(t, head, m[3])
		assert.Regexp(t, `^v\d+\.\d+\.\d+-`, m[1], "a pseudo-version stamped by go build")
	}
	got, err := exec.Command(bin, "version", "--json").Output()
	require.NoError(t, err)
	assert.Contains(t, string(got), `"revision": "`+head+`"`)
	assert.Contains(t, string(got), `"revision_from": "build"`)
}

func gitHead(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// A filter that selects nothing exits 2 and names the filter.
func TestEmptySelectionExitsTwo(t *testing.T) {
	scenarios := filepath.Join(root, "scenarios")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"typo/*"}, `no scenario × model run selected by 'typo/*': no scenario id matches 'typo/*'`},
		{[]string{"--model", "nosuch"}, `no scenario × model run selected by --model nosuch: --model nosuch: no scenario's matrix has that model or provider`},
		{[]string{"--tag", "nosuch"}, `no scenario × model run selected by --tag nosuch: --tag nosuch: no scenario has that tag`},
		{[]string{"retry/exhausted", "--model", "ollama"}, `no scenario × model run selected by retry/exhausted --model ollama: each filter matches something, but together they select nothing`},
		{[]string{"retry/*", "--skip", "retry"}, `no scenario × model run selected by 'retry/*' --skip retry: --skip retry removes every run the other filters select`},
	}
	for _, cmd := range []string{"run", "list"} {
		for _, tt := range tests {
			args := append([]string{cmd, "--scenarios", scenarios, "--report-dir", t.TempDir()}, tt.args...)
			if cmd == "list" {
				args = append([]string{cmd, "--scenarios", scenarios}, tt.args...)
			}
			code, out, errs := conform(t, args...)
			assert.Equal(t, exitUsage, code, "%v", args)
			assert.Empty(t, out, "%v: nothing ran", args)
			assert.Equal(t, "conform "+cmd+": "+tt.want+"\n", errs, "%v", args)
		}
	}
}

// --skip drops scenarios by id glob or by tag.
func TestSkip(t *testing.T) {
	scenarios := filepath.Join(root, "scenarios")
	_, all, _ := conform(t, "list", "--scenarios", scenarios)
	code, out, errs := conform(t, "list", "--scenarios", scenarios, "--skip", "tools/*", "--skip", "streaming")
	require.Equal(t, exitOK, code, errs)
	var kept int
	for _, line := range strings.Split(strings.TrimSpace(all), "\n") {
		f := strings.Split(line, "\t")
		drop := strings.HasPrefix(f[0], "tools/") || strings.Contains(","+f[2]+",", ",streaming,")
		assert.Equal(t, !drop, strings.Contains(out, line+"\n"), line)
		if !drop {
			kept++
		}
	}
	assert.Greater(t, kept, 0)
	assert.Len(t, strings.Split(strings.TrimSpace(out), "\n"), kept)
}

// --known-failures lists only the runs a scenario marks, each with its
// symptom on one line, whatever the model key the mark names (provider,
// column or model).
func TestListKnownFailures(t *testing.T) {
	dir := t.TempDir()
	columns, err := os.ReadFile(filepath.Join(root, "scenarios", "columns.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "columns.yaml"), columns, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "basic"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "basic", "marked.yaml"), []byte(`id: basic/marked
title: A marked scenario
models: [anthropic:claude-sonnet-4-6, openai:gpt-4.1, gemini:gemini-2.5-flash]
known_failures:
  - models: [openai-chat, gemini]
    symptom: >-
      a symptom
      on two lines
steps:
  - user: Say hi.
  - call: {reply: {text: Hi.}}
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "basic", "clean.yaml"), []byte(`id: basic/clean
title: An unmarked scenario
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: Say hi.
  - call: {reply: {text: Hi.}}
`), 0o644))
	code, out, errs := conform(t, "list", "--scenarios", dir, "--known-failures")
	require.Equal(t, exitOK, code, errs)
	want := "basic/marked\topenai:gpt-4.1\ta symptom on two lines\n" +
		"basic/marked\tgemini:gemini-2.5-flash\ta symptom on two lines\n"
	assert.Equal(t, want, out)
}
