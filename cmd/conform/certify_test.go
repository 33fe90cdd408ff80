package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/certify"
)

// conform certify on metis's own adapter writes a bundle that conform
// verify accepts, and rejects once a byte of it changes.
func TestCertifyThenVerify(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cert")
	code, stdout, stderr := conform(t, "certify", "-p", "2", "--provider", "anthropic", "--profile", "core", "--out", out)
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "ok   basic/plain-text [anthropic:claude-sonnet-4-6]")
	assert.Contains(t, stdout, "CERTIFIED for core: metis anthropic (builtin, provider anthropic)")
	assert.Contains(t, stdout, "check it with: conform verify --digest sha256:")

	code, stdout, _ = conform(t, "verify", out)
	require.Equal(t, exitOK, code, stdout)
	assert.Contains(t, stdout, "CERTIFIED for core")
	if info, err := certify.Builtin().Info(); err != nil || info.Version == certify.Unpublished {
		assert.Contains(t, stdout, certify.OwnDevSuite)
	} else {
		assert.Contains(t, stdout, "published suite "+info.Version)
	}

	var report map[string]any
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &report))
	assert.Equal(t, "conform certify -p 2 --provider anthropic --profile core --out "+out, report["reproduce"])

	summary := filepath.Join(out, "summary.md")
	data, err = os.ReadFile(summary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(summary, append(data, ' '), 0o644))
	code, stdout, _ = conform(t, "verify", out)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stdout, "summary.md was changed")
}

func TestCertifyErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"certify"}, exitUsage, "--provider is required"},
		{[]string{"certify", "--provider", "nosuch"}, exitUsage, `provider "nosuch"`},
		{[]string{"certify", "--provider", "anthropic", "--profile", "vision"}, exitUsage, `unknown profile "vision"`},
		{[]string{"certify", "--provider", "anthropic", "--exec", `"unterminated`}, exitUsage, "not a command line"},
		{[]string{"certify", "--provider", "anthropic", "no-such-scenario/*"}, exitUsage, "no run of the suite talks to anthropic"},
		{[]string{"certify", "--provider", "anthropic", "--exec", "/nonexistent/adapter", "--out", "unused"}, exitFailed, "NOT CERTIFIED: the adapter did not start"},
		{[]string{"serve", "--max-runs", "-1"}, exitUsage, "--run-idle and --max-runs take 0 (no bound) or more"},
		{[]string{"serve", "--run-idle", "-1s"}, exitUsage, "--run-idle and --max-runs take 0 (no bound) or more"},
		{[]string{"verify"}, exitUsage, "want exactly one BUNDLE"},
		{[]string{"verify", "no-such-bundle"}, exitFailed, "no-such-bundle"},
	} {
		code, stdout, stderr := conform(t, tc.args...)
		assert.Equal(t, tc.code, code, "conform %v", tc.args)
		assert.Contains(t, stdout+stderr, tc.want, "conform %v", tc.args)
	}
}

// conform serve answers on loopback and makes the --scenario run.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--scenario", "basic/plain-text", "--model", "anthropic:claude-sonnet-4-6"}, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var base string
	for lines.Scan() {
		if u, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "anthropic base URL: "); ok {
			base = u
			break
		}
	}
	require.NotEmpty(t, base, "serve printed no base URL")
	go io.Copy(io.Discard, pr)
	resp, err := http.Get(strings.TrimSuffix(base, "/anthropic"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"scenario": "basic/plain-text"`)
	cancel()
	// It stops once its context ends; if it never does, go test's
	// timeout ends the test, with every goroutine's stack.
	assert.Equal(t, exitOK, <-done)
}

// --publish publishes only a committed suite of a git checkout.
func TestCertifyPublishNeedsACommittedSuite(t *testing.T) {
	code, _, stderr := conform(t, "certify", "--publish", "1", "--suite", t.TempDir())
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, "is not a git checkout")
}
