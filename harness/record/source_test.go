package record_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/record"
)

// A base URL that is a `conform emulate` server records source emulator
// with the fake key, and needs no key from the environment; the fake key
// is not recorded.
func TestRecordThroughEmulatorBaseURL(t *testing.T) {
	srv := emulator.NewServer(emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) {
		return emulator.Reply{Text: "Hello, and goodbye!"}, nil
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out bytes.Buffer
	sum, err := record.Run(context.Background(), record.Config{
		ScenarioDir: fixtureDir, CassetteDir: filepath.Join(dir, "c"), GoldenDir: filepath.Join(dir, "g"),
		IDs: []string{"basic/plain-text"}, Models: []string{"anthropic"},
		BaseURL: srv.URL, Getenv: func(string) string { return "" }, Out: &out,
	})
	require.NoError(t, err)
	require.Len(t, sum.Runs, 1)
	require.Equal(t, record.ActionRecorded, sum.Runs[0].Action, out.String())
	path := filepath.Join(dir, "c", "anthropic", "basic", "plain-text.yaml")
	p, err := record.ReadProvenance(path)
	require.NoError(t, err)
	assert.Equal(t, record.SourceEmulator, p.Source)
	assert.Equal(t, srv.URL, p.Endpoint)
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "the /health probe and the two calls")
	assert.Equal(t, "/health", reqs[0].Path)
	assert.Equal(t, harness.FakeKey, reqs[1].Header.Get("X-Api-Key"), "the fake key reached the server")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), harness.FakeKey)
}

func TestDetectEmulator(t *testing.T) {
	emu := emulator.NewServer()
	defer emu.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`)) //nolint:errcheck
	}))
	defer other.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()

	for _, tt := range []struct {
		base string
		want bool
		err  string
	}{
		{emu.URL, true, ""},
		{emu.URL + "/v1", true, ""}, // a path prefix: /health is at the root
		{other.URL, false, ""},
		{gone.URL, false, "record: base URL " + gone.URL + " does not answer: "},
	} {
		u, err := url.Parse(tt.base)
		require.NoError(t, err)
		got, err := record.DetectEmulator(context.Background(), u, nil)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.base)
			continue
		}
		require.NoError(t, err, tt.base)
		assert.Equal(t, tt.want, got, tt.base)
	}
}

func TestSourceErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  record.Config
		want string
	}{
		{record.Config{Source: "imported", BaseURL: "http://127.0.0.1:1"}, "record: source imported: `record import` makes imported cassettes"},
		{record.Config{Source: "nope", BaseURL: "http://127.0.0.1:1"}, `record: source "nope": want live or emulator`},
		{record.Config{Source: record.SourceLive, Emulator: true}, "record: the in-process emulator's cassettes are source emulator, not live"},
		{record.Config{Source: record.SourceEmulator}, "record: source emulator needs the emulator: --emulator, or --base-url of a `conform emulate` server"},
	} {
		tt.cfg.ScenarioDir = fixtureDir
		_, err := record.Run(context.Background(), tt.cfg)
		assert.EqualError(t, err, tt.want)
	}
}
