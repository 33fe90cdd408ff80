package replay_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

// TestLoadFS loads cassettes from a file system as Load does from disk:
// with or without ".yaml", in the layout record writes or (with a comment
// the fast reader leaves to go-vcr) any other, serving the recorded
// response; a missing cassette is ErrNoCassette, an unreadable or empty
// one an error, each naming the file.
func TestLoadFS(t *testing.T) {
	stream, err := os.ReadFile("testdata/stream.yaml")
	require.NoError(t, err)
	fsys := fstest.MapFS{
		"a/stream.yaml":   {Data: stream},
		"a/library.yaml":  {Data: []byte(strings.Replace(string(stream), "version: 2\n", "version: 2 # written by hand\n", 1))},
		"a/empty.yaml":    {Data: []byte("---\nversion: 2\ninteractions: []\n")},
		"a/dir.yaml/file": {Data: []byte("x")},
	}
	for _, tc := range []struct {
		name, err string
		is        error
	}{
		{name: "a/stream"},
		{name: "a/stream.yaml"},
		{name: "a/./stream"},
		{name: "a/library"},
		{name: "a/missing", err: "no cassette a/missing.yaml", is: replay.ErrNoCassette},
		{name: "a/empty", err: "empty cassette a/empty.yaml: it holds no interaction", is: replay.ErrEmptyCassette},
		{name: "a/dir", err: "loading cassette a/dir.yaml: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := replay.LoadFS(fsys, tc.name)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				if tc.is != nil {
					assert.ErrorIs(t, err, tc.is)
				}
				return
			}
			require.NoError(t, err)
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "https://api.anthropic.com/v1/messages",
				strings.NewReader(`{"model":"claude-sonnet-4-6","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`))
			require.NoError(t, err)
			req.Header.Set("Anthropic-Version", "2023-06-01")
			req.Header.Set("Content-Type", "application/json")
			resp, err := p.RoundTrip(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Contains(t, string(body), "event: message_stop")
		})
	}
}

// TestReadProvenance reads a cassette's provenance header from disk; a
// file that is not there is an error naming it.
func TestReadProvenance(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(path, []byte("# metis cassette provenance\n# provider: openai\n# source: emulator\n# recorded_at: 2026-05-01T12:00:00Z\n---\nversion: 2\n"), 0o644))
	p, err := replay.ReadProvenance(path)
	require.NoError(t, err)
	assert.Equal(t, "openai", p.Provider)
	assert.Equal(t, replay.SourceEmulator, p.Source)

	_, err = replay.ReadProvenance(filepath.Join(dir, "none.yaml"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "none.yaml"))
}

// TestScrubQuery: in a request's query the parameters replay knows (alt,
// api-version, beta, in any case) keep their values, a credential
// parameter (key, api_key, access_token, ...) goes, and any other keeps its
// name with its value masked; a query with nothing to change is left as
// written, and a URL without a query stays without one.
func TestScrubQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://x.test/v1/m", "https://x.test/v1/m"},
		{"https://x.test/v1/m?alt=sse", "https://x.test/v1/m?alt=sse"},
		{"https://x.test/v1/m?alt=sse&key=AIzaFAKE", "https://x.test/v1/m?alt=sse"},
		{"https://x.test/v1/m?API-Version=2024-10-21&api_key=s&access_token=t", "https://x.test/v1/m?API-Version=2024-10-21"},
		{"https://x.test/v1/m?beta=true&user=alice&user=bob", "https://x.test/v1/m?beta=true&user=REDACTED&user=REDACTED"},
		{"https://x.test/v1/m?z=REDACTED&a=REDACTED", "https://x.test/v1/m?z=REDACTED&a=REDACTED"},
		{"https://x.test/v1/m?z=REDACTED&a=1", "https://x.test/v1/m?a=REDACTED&z=REDACTED"},
	} {
		u, err := url.Parse(tc.in)
		require.NoError(t, err)
		replay.ScrubQuery(u)
		assert.Equal(t, tc.want, u.String(), tc.in)
	}
}
