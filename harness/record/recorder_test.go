package record_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/replay"
)

const fakeKey = "sk-test-FAKE-KEY-1234567890abcdef"

var fixedNow = func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }

// anthropicLike answers like the Messages API, with the headers a real
// response has (volatile and secret ones included).
func anthropicLike(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Request-Id", "req_011CVa2keDyYxR4zcffmFjWv")
		h.Set("Set-Cookie", "__cf_bm=abc; path=/")
		h.Set("Anthropic-Ratelimit-Requests-Remaining", "49")
		h.Set("X-Should-Retry", "false")
		io.WriteString(w, body)
	})
}

const sseBody = "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

func post(t *testing.T, rt http.RoundTripper, ctx context.Context, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"model":"claude-sonnet-4-6","stream":true}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Api-Key", fakeKey)
	req.Header.Set("Authorization", "Bearer "+fakeKey)
	req.Header.Set("User-Agent", "metis-test/1")
	req.Header.Set("X-Stainless-Os", "Linux")
	req.Header.Set("OpenAI-Organization", "org-secret")
	req.Header.Set("Cookie", "session=secret")
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	return resp, string(body)
}

func TestRecorderWritesScrubbedCassette(t *testing.T) {
	srv := httptest.NewServer(anthropicLike(sseBody))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "anthropic", "basic", "x.yaml")
	rec, err := record.NewRecorder(path, record.Options{
		Scenario: "basic/x", Provider: "anthropic", Model: "anthropic:claude-sonnet-4-6",
		Source: record.SourceEmulator, Secrets: []string{fakeKey}, Now: fixedNow,
	})
	require.NoError(t, err)

	_, body := post(t, rec, context.Background(), srv.URL+"/v1/messages?key="+fakeKey+"&alt=sse")
	assert.Equal(t, sseBody, body, "the caller gets the body unchanged")
	assert.Equal(t, 1, rec.Interactions())
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing is written before Save")

	require.NoError(t, rec.Finish(true))
	assert.True(t, rec.Written())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)

	assert.True(t, strings.HasPrefix(text, "# metis cassette provenance\n# scenario: basic/x\n# provider: anthropic\n# model: anthropic:claude-sonnet-4-6\n# source: emulator\n# recorded_at: 2026-05-01T12:00:00Z\n# metis_version: "+record.Version+"\n---\n"), text)
	assert.NotContains(t, text, fakeKey)
	for _, gone := range []string{"X-Api-Key", "Authorization", "User-Agent", "X-Stainless", "Openai-Organization", "org-secret", "Cookie", "Set-Cookie", "__cf_bm", "Ratelimit", "req_011CVa2keDyYxR4zcffmFjWv", "Date:", "key="} {
		assert.NotContains(t, text, gone)
	}
	for _, kept := range []string{"Anthropic-Version:", "2023-06-01", "X-Should-Retry:", "req_masked_1", "alt=sse", "duration: 0s", "duration: 0s", "data: {\"type\":\"message_start\"}"} {
		assert.Contains(t, text, kept)
	}

	p, err := record.ReadProvenance(path)
	require.NoError(t, err)
	assert.Equal(t, record.Provenance{Scenario: "basic/x", Provider: "anthropic", Model: "anthropic:claude-sonnet-4-6",
		Source: record.SourceEmulator, RecordedAt: fixedNow(), MetisVersion: record.Version}, p)

	// The scrubbed cassette replays for a request with another key.
	player, err := replay.Load(path)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages?alt=sse&key=sk-test-OTHER", strings.NewReader(`{"stream":true,"model":"claude-sonnet-4-6"}`))
	require.NoError(t, err)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	resp, err := player.RoundTrip(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, sseBody, string(got))
	assert.Equal(t, "req_masked_1", resp.Header.Get("Request-Id"))
}

func TestRecorderKeepsUnchangedCassettes(t *testing.T) {
	body := sseBody
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		anthropicLike(body).ServeHTTP(w, r)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "c.yaml")
	save := func(now time.Time) *record.Recorder {
		rec, err := record.NewRecorder(path, record.Options{Provider: "anthropic", Now: func() time.Time { return now }})
		require.NoError(t, err)
		post(t, rec, context.Background(), srv.URL+"/v1/messages")
		require.NoError(t, rec.Save())
		assert.True(t, rec.Written())
		return rec
	}
	first := save(fixedNow())
	assert.False(t, first.Unchanged())
	want, err := os.ReadFile(path)
	require.NoError(t, err)

	second := save(fixedNow().Add(time.Hour))
	assert.True(t, second.Unchanged(), "the same traffic again")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "byte-identical, recorded_at included")

	body = strings.Replace(sseBody, "message_stop", "message_stop ", 1)
	third := save(fixedNow().Add(2 * time.Hour))
	assert.False(t, third.Unchanged())
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(got), "# recorded_at: 2026-05-01T14:00:00Z\n")
}

// existing writes a cassette's old bytes and returns them.
func existing(t *testing.T, path string) []byte {
	t.Helper()
	old := []byte("# an older cassette, byte for byte\n---\nversion: 2\ninteractions: []\n")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, old, 0o644))
	return old
}

// onlyFile asserts that dir holds exactly the file name (no temporary
// leftovers).
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{name}, names); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
}

func TestRecorderDiscardKeepsExistingCassette(t *testing.T) {
	srv := httptest.NewServer(anthropicLike(sseBody))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	old := existing(t, path)
	rec, err := record.NewRecorder(path, record.Options{})
	require.NoError(t, err)
	post(t, rec, context.Background(), srv.URL+"/v1/messages")
	require.NoError(t, rec.Finish(false))
	assert.False(t, rec.Written())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, old, data)
	onlyFile(t, dir, "c.yaml")
	require.NoError(t, rec.Save(), "Save after Discard does nothing")
	data, _ = os.ReadFile(path)
	assert.Equal(t, old, data)
}

func TestRecorderContextDoneBeforeSave(t *testing.T) {
	srv := httptest.NewServer(anthropicLike(sseBody))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	old := existing(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	rec, err := record.NewRecorder(path, record.Options{Context: ctx})
	require.NoError(t, err)
	post(t, rec, context.Background(), srv.URL+"/v1/messages")
	cancel()
	err = rec.Save()
	assert.ErrorIs(t, err, context.Canceled)
	data, _ := os.ReadFile(path)
	assert.Equal(t, old, data)
	onlyFile(t, dir, "c.yaml")
}

func TestRecorderRefusesLeakedSecrets(t *testing.T) {
	tests := []struct {
		name, body, kind string
		secrets          []string
	}{
		// The scrubber removes every key shape it sees and every value in
		// a position it knows; the scan is the backstop for what it does
		// not: a random value under a name it does not know, a key whose
		// letters are percent-encoded in free text.
		{"random value in a credential-like position", "data: {\"deploy_token\":\"q8Xv2LmZ7rT4kW9pN3bF6hJ1\"}\n\n", "a high-entropy key, token, secret or password value", nil},
		{"percent-encoded key shape", "data: {\"k\":\"%73k-proj-abcdefghijklmnopqrstuvwxyz\"}\n\n", "an OpenAI project, admin or service-account key", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(anthropicLike(tt.body))
			defer srv.Close()
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			old := existing(t, path)
			rec, err := record.NewRecorder(path, record.Options{Secrets: tt.secrets})
			require.NoError(t, err)
			post(t, rec, context.Background(), srv.URL+"/v1/messages")
			err = rec.Save()
			require.Error(t, err)
			assert.True(t, errors.Is(err, record.ErrLeak))
			var le *record.LeakError
			require.ErrorAs(t, err, &le)
			require.NotEmpty(t, le.Leaks)
			assert.Equal(t, tt.kind, le.Leaks[0].Kind)
			assert.NotContains(t, err.Error(), strings.TrimPrefix(tt.body, "data: "), "the error never prints the secret")
			data, _ := os.ReadFile(path)
			assert.Equal(t, old, data, "the existing cassette is untouched")
			onlyFile(t, dir, "c.yaml")
			assert.False(t, rec.Written())
		})
	}
}

func TestRecorderWithoutTrafficWritesNothing(t *testing.T) {
	dir := t.TempDir()
	rec, err := record.NewRecorder(filepath.Join(dir, "c"), record.Options{})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "c.yaml"), rec.Path())
	require.NoError(t, rec.Save())
	assert.False(t, rec.Written())
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries)
}

func TestRecorderCancelMidStream(t *testing.T) {
	srv := httptest.NewServer(anthropicLike(sseBody))
	defer srv.Close()
	rec, err := record.NewRecorder(filepath.Join(t.TempDir(), "c.yaml"), record.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp, err := rec.RoundTrip(req)
	require.NoError(t, err)
	buf := make([]byte, 4096)
	n, err := resp.Body.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", string(buf[:n]), "one event per Read")
	cancel()
	_, err = resp.Body.Read(buf)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, rec.Interactions(), "the whole exchange was recorded before the cancel")
}

func TestRecorderIgnoresNewCanonicalIDs(t *testing.T) {
	srv := httptest.NewServer(anthropicLike(sseBody))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "c.yaml")
	var recs []*record.Recorder
	for i, id := range []string{"tu_01M817MJJR11NWTHK405N9YFGF", "tu_01M817MNHBC8H9JCZ5CFGJS688"} {
		rec, err := record.NewRecorder(path, record.Options{Now: func() time.Time { return fixedNow().Add(time.Duration(i) * time.Hour) }})
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{"tool_use_id":"`+id+`"}`))
		require.NoError(t, err)
		resp, err := rec.RoundTrip(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.NoError(t, rec.Save())
		recs = append(recs, rec)
	}
	assert.True(t, recs[1].Unchanged(), "only the canonical tool id differs")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "tu_01M817MJJR11NWTHK405N9YFGF", "the first recording is kept")
}
