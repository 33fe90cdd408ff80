package recordcmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness/record"
)

// durations matches the elapsed times in the output, which vary.
var durations = regexp.MustCompile(`\b[0-9.]+(ns|µs|ms|s|m)\b`)

func TestDryRun(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--dry-run", "--emulator", "--scenarios", "../../scenarios",
		"--cassettes", dir, "--scenario", "tools/single-round-trip", "--model", "anthropic"}, &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	assert.Equal(t, "[1/1] tools/single-round-trip [anthropic:claude-sonnet-4-6]: would record "+
		filepath.Join(dir, "anthropic", "tools", "single-round-trip.yaml")+" (DURATION)\n"+
		"0 recorded, 0 without traffic, 0 skipped, 0 failed, 1 would be recorded in DURATION\n", durations.ReplaceAllString(stdout.String(), "DURATION"))
	entries, err := os.ReadDir(dir)
	assert.NoError(t, err)
	assert.Empty(t, entries, "a dry run writes nothing")
}

func TestRecordWithEmulator(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--emulator", "--scenarios", "../../scenarios", "--cassettes", dir,
		"--goldens", filepath.Join(dir, "goldens"), "--scenario", "basic/plain-text", "--model", "openai:gpt-5"}, &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	// Both OpenAI columns run basic/plain-text, so each has its own cassette.
	assert.FileExists(t, filepath.Join(dir, "openai", "basic", "plain-text@gpt-5.yaml"))
	assert.Contains(t, stdout.String(), "1 recorded")
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout string // a prefix of stdout
		stderr string // a prefix of stderr
	}{
		{[]string{"--help"}, 0, "usage: conform record [flags]\n\nRecord scenario runs", ""},
		{[]string{"-h"}, 0, "usage: conform record [flags]\n", ""},
		{[]string{"--nope"}, 2, "", "conform record: unknown flag: --nope\n\nusage: conform record [flags]\n"},
		{[]string{"extra"}, 2, "", "conform record: unexpected arguments [\"extra\"] (scenarios are chosen with --scenario)\n\nusage: conform record [flags]\n"},
		{[]string{"--emulator", "--base-url", "http://127.0.0.1:1"}, 1, "", "record: choose the emulator or a base URL, not both"},
		{[]string{"--emulator", "--scenarios", "../../scenarios", "--scenario", "none/*"}, 1, "", `record: no scenario run matches (scenarios "none/*", models "")`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		assert.Equal(t, tt.code, code, "%v", tt.args)
		if tt.stdout == "" {
			assert.Empty(t, stdout.String(), "%v", tt.args)
		} else {
			assert.True(t, strings.HasPrefix(stdout.String(), tt.stdout), "%v: stdout %q", tt.args, stdout.String())
		}
		if tt.stderr == "" {
			assert.Empty(t, stderr.String(), "%v", tt.args)
		} else {
			assert.True(t, strings.HasPrefix(stderr.String(), tt.stderr), "%v: stderr %q", tt.args, stderr.String())
		}
	}
}

// Without keys, a live recording lists every variable the selected runs
// need, once each, before doing any work, and exits 2.
func TestPreflightListsEveryMissingKey(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string // the lines after the heading, in order
	}{
		// testdata/scenarios: pre/plain runs on anthropic and openai;
		// pre/swap runs on anthropic and swaps to gemini.
		{"no keys at all", nil, nil, []string{
			"  ANTHROPIC_API_KEY (adapter anthropic, 2 run(s))",
			"  GEMINI_API_KEY (adapter gemini, 1 run(s))",
			"  OPENAI_API_KEY (adapter openai, 1 run(s))",
		}},
		{"two keys set", nil, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x", "OPENAI_API_KEY": "sk-x"}, []string{
			"  GEMINI_API_KEY (adapter gemini, 1 run(s))",
		}},
		{"one provider selected", []string{"--model", "openai"}, nil, []string{
			"  OPENAI_API_KEY (adapter openai, 1 run(s))",
		}},
		{"a swap needs the swapped-to provider's key", []string{"--scenario", "pre/swap"}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x"}, []string{
			"  GEMINI_API_KEY (adapter gemini, 1 run(s))",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cassettes")
			var stdout, stderr bytes.Buffer
			args := append([]string{"--scenarios", "testdata/scenarios", "--cassettes", dir}, tt.args...)
			code := runEnv(context.Background(), args, func(k string) string { return tt.env[k] }, &stdout, &stderr)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout.String(), "no run started")
			want := "conform record: the selected runs need API keys the environment lacks; set:\n" + strings.Join(tt.want, "\n") +
				"\n(or record against the emulator with --emulator, or preview with --dry-run)\n"
			assert.Equal(t, want, stderr.String())
			assert.NoDirExists(t, dir, "nothing written")
		})
	}
}

// Existing cassettes are not recorded without --force, so they need no key;
// --emulator and --dry-run need none either.
func TestPreflightNeedsNoKeyForNothingToRecord(t *testing.T) {
	for _, args := range [][]string{
		{"--cassettes", "../../cassettes", "--scenario", "basic/*", "--dry-run"},
		{"--cassettes", "../../cassettes", "--scenario", "basic/*"},
		{"--cassettes", t.TempDir(), "--scenario", "basic/*", "--dry-run"},
	} {
		var stdout, stderr bytes.Buffer
		code := runEnv(context.Background(), append([]string{"--scenarios", "../../scenarios"}, args...), func(string) string { return "" }, &stdout, &stderr)
		assert.Equal(t, 0, code, "%v: %s", args, stderr.String())
		assert.NotContains(t, stderr.String(), "API_KEY", "%v", args)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--emulator", "--scenarios", "../../scenarios", "--cassettes", t.TempDir()}, &stdout, &stderr)
	assert.Equal(t, 130, code)
	assert.Contains(t, stderr.String(), "conform record: interrupted")
}

// run is the command as `conform record`, with the process's environment.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Run(ctx, "conform record", args, os.Getenv, stdout, stderr)
}

// runEnv is run with the environment as a function.
func runEnv(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return Run(ctx, "conform record", args, getenv, stdout, stderr)
}

// The help lists the import subcommand; --source is checked.
func TestHelpAndSourceFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"--help"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "\ncommands:\n  import    convert traffic other tools recorded")
	assert.Contains(t, stdout.String(), `"conform record import --help" shows its flags`)
	assert.Contains(t, stdout.String(), "      --source SOURCE")

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--base-url", "http://127.0.0.1:1", "--source", "imported"}, `conform record: --source "imported": want live or emulator` + "\n\nusage: conform record"},
		{[]string{"--source", "emulator"}, "conform record: --source says what --base-url answers: give --base-url too\n\nusage: conform record"},
	} {
		stdout.Reset()
		stderr.Reset()
		assert.Equal(t, 2, run(context.Background(), tt.args, &stdout, &stderr), "%v", tt.args)
		assert.True(t, strings.HasPrefix(stderr.String(), tt.want), "%v: %q", tt.args, stderr.String())
	}
}

// A --base-url that is a conform emulate server needs no key: record says
// so, and its cassettes say source: emulator. Another server needs the
// keys.
func TestBaseURLOfTheEmulatorNeedsNoKey(t *testing.T) {
	srv := emulator.NewServer(emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) {
		return emulator.Reply{Text: "Hello there!"}, nil
	}))
	defer srv.Close()
	dir := t.TempDir()
	noKeys := func(string) string { return "" }
	args := []string{"--base-url", srv.URL, "--scenarios", "testdata/scenarios", "--cassettes", dir,
		"--goldens", filepath.Join(dir, "goldens"), "--scenario", "pre/plain", "--model", "openai"}
	var stdout, stderr bytes.Buffer
	runEnv(context.Background(), args, noKeys, &stdout, &stderr)
	assert.NotContains(t, stderr.String(), "API keys", "no key asked for")
	assert.True(t, strings.HasPrefix(stdout.String(), srv.URL+" is a conform emulate server: recording source emulator, with a fake key\n"), stdout.String())
	cassette := filepath.Join(dir, "openai", "pre", "plain.yaml")
	p, err := record.ReadProvenance(cassette)
	require.NoError(t, err, "%s\n%s", stdout.String(), stderr.String())
	assert.Equal(t, record.SourceEmulator, p.Source)

	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	stdout.Reset()
	stderr.Reset()
	args[1], args[5] = other.URL, t.TempDir()
	assert.Equal(t, 2, runEnv(context.Background(), args, noKeys, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "  OPENAI_API_KEY (adapter openai, 1 run(s))")
}
