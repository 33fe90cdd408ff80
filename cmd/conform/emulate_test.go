package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `conform emulate` serves the emulator until its context ends, answering
// with the scripted replies in order.
func TestEmulateServesScriptedReplies(t *testing.T) {
	script := filepath.Join(t.TempDir(), "replies.json")
	require.NoError(t, os.WriteFile(script, []byte(`[{"text":"Hello from the script."}]`), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"emulate", "--replies", script}, pw, io.Discard)
		pw.Close()
	}()

	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	require.NotEmpty(t, url, "no URL in %q", line)
	go io.Copy(io.Discard, pr)

	req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer test-key-not-secret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "Hello from the script.")

	cancel()
	// It stops once its context ends; if it never does, go test's
	// timeout ends the test, with every goroutine's stack.
	assert.Equal(t, exitOK, <-done)
}

// A bad replies file is an error naming the flag, the file, its line and
// what is wrong in the file's terms.
func TestEmulateRejectsBadScript(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ data, want string }{
		{`{not json`, "replies.json:1:1: want a JSON array of replies"},
		{"[\n  {\"text\": \"a\"},\n  {\"tool_calls\": {\"name\": \"x\"}}\n]", "replies.json:3:18: reply 1: tool_calls: want an array, got object"},
		{"[{\"text\": \"a\",\n  \"stop\": \"end_turn\"}]", `replies.json:2:3: reply 0: unknown field "stop"`},
	} {
		script := filepath.Join(dir, "replies.json")
		require.NoError(t, os.WriteFile(script, []byte(tt.data), 0o600))
		code, out, errs := conform(t, "emulate", "--replies", script)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, out)
		assert.True(t, strings.HasPrefix(errs, "conform emulate: --replies "+filepath.Join(dir, tt.want)), errs)
	}
	code, _, errs := conform(t, "emulate", "--replies", filepath.Join(dir, "missing.json"))
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "conform emulate: --replies "+filepath.Join(dir, "missing.json")+": cannot read it: no such file or directory\n", errs)
}
