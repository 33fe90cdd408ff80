package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
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
		"--goldens", filepath.Join(dir, "goldens"), "--scenario", "basic/*", "--model", "openai:gpt-5"}, &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	assert.FileExists(t, filepath.Join(dir, "openai", "basic", "plain-text.yaml"))
	assert.Contains(t, stdout.String(), "1 recorded")
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--help"}, 0, "usage: record [flags]"},
		{[]string{"--nope"}, 2, "record: unknown flag: --nope"},
		{[]string{"extra"}, 2, `record: unexpected arguments ["extra"]`},
		{[]string{"--emulator", "--base-url", "http://127.0.0.1:1"}, 1, "record: choose the emulator or a base URL, not both"},
		{[]string{"--emulator", "--scenarios", "../../scenarios", "--scenario", "none/*"}, 1, `record: no scenario run matches (scenarios "none/*", models "")`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		assert.Equal(t, tt.code, code, "%v", tt.args)
		assert.Contains(t, stderr.String(), tt.err, "%v", tt.args)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--emulator", "--scenarios", "../../scenarios", "--cassettes", t.TempDir()}, &stdout, &stderr)
	assert.Equal(t, 130, code)
	assert.Contains(t, stderr.String(), "record: interrupted")
}
