package record_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/replay"
)

// Made-up secrets that are not key-shaped, so only scrubbing (not the
// refusal scan) can keep them out of a cassette.
const (
	tokenValue    = "opaque-session-token-value"
	passwordValue = "hunter2-is-my-password"
	paramValue    = "opaque-param-value"
)

// TestRecorderScrubsBodiesAndURL: the configured key and the values of
// credential fields leave request and response bodies (JSON, SSE data,
// JSON inside a tool's argument string) and the URL; query parameters
// off the allowlist keep only their names. It holds with no key
// configured too (a keyless local server). The cassette still replays.
func TestRecorderScrubsBodiesAndURL(t *testing.T) {
	for _, keys := range [][]string{{fakeKey}, nil} {
		name := "with a configured key"
		if keys == nil {
			name = "keyless local server"
		}
		t.Run(name, func(t *testing.T) {
			respBody := "data: {\"echo\":\"" + fakeKey + "\",\"access_token\":\"" + tokenValue + "\"}\n\n" +
				"data: {\"arguments\":\"{\\\"password\\\":\\\"" + passwordValue + "\\\",\\\"user\\\":\\\"bob\\\"}\"}\n\n"
			if keys == nil {
				respBody = strings.ReplaceAll(respBody, fakeKey, "no key echoed")
			}
			srv := httptest.NewServer(anthropicLike(respBody))
			defer srv.Close()
			path := filepath.Join(t.TempDir(), "c.yaml")
			rec, err := record.NewRecorder(path, record.Options{Secrets: keys, Scenario: "basic/x", Provider: "vllm", Model: "vllm:m"})
			require.NoError(t, err)
			reqBody := `{"model":"m","api_key":"` + fakeKey + `","client_secret":"` + tokenValue + `"}`
			// A key in the path: some gateways take one there.
			pathKey := fakeKey
			if keys == nil {
				pathKey = "nokey"
			}
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions/"+pathKey+"?alt=sse&session="+paramValue, strings.NewReader(reqBody))
			require.NoError(t, err)
			resp, err := rec.RoundTrip(req)
			require.NoError(t, err)
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, respBody, string(got), "the caller gets the body unchanged")
			require.NoError(t, rec.Save())

			data, err := os.ReadFile(path)
			require.NoError(t, err)
			text := string(data)
			for _, secret := range []string{fakeKey, tokenValue, passwordValue, paramValue} {
				assert.NotContains(t, text, secret)
			}
			for _, kept := range []string{`alt=sse&session=REDACTED`, `"access_token":"REDACTED"`, `\"password\":\"REDACTED\",\"user\":\"bob\"`, `"client_secret":"REDACTED"`} {
				assert.Contains(t, text, kept)
			}

			// Replay matches a request carrying other credentials.
			player, err := replay.Load(path)
			require.NoError(t, err)
			other := strings.NewReplacer(fakeKey, "sk-test-OTHER-KEY-0000000000", tokenValue, "another-token").Replace(reqBody)
			url := srv.URL + "/v1/chat/completions/nokey?alt=sse&session=another"
			if keys != nil {
				// A key in the path is in the matched path too: the
				// recorder cannot know the next run's, so the path
				// shows the placeholder.
				url = srv.URL + "/v1/chat/completions/REDACTED?alt=sse&session=another"
			}
			req, err = http.NewRequest(http.MethodPost, url, strings.NewReader(other))
			require.NoError(t, err)
			_, err = player.RoundTrip(req)
			require.NoError(t, err)
		})
	}
}

// The package's own Scrub works on a whole exchange without a recorder.
func TestScrubKnownFieldsWithoutKeys(t *testing.T) {
	srv := httptest.NewServer(anthropicLike(`{"refresh_token":"` + tokenValue + `"}`))
	defer srv.Close()
	rec, err := record.NewRecorder(filepath.Join(t.TempDir(), "c.yaml"), record.Options{})
	require.NoError(t, err)
	post(t, rec, context.Background(), srv.URL+"/v1/messages")
	require.NoError(t, rec.Save())
	data, err := os.ReadFile(rec.Path())
	require.NoError(t, err)
	assert.NotContains(t, string(data), tokenValue)
}
