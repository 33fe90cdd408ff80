package replay_test

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

// importedCassette is an imported cassette of two calls another client
// made: a stream, then a plain call.
const importedCassette = `# metis cassette provenance
# scenario: real/x
# provider: anthropic
# source: imported
# origin_file: tests/cassettes/test_x.yaml
# origin_project: https://github.com/example/project
# origin_format: vcrpy
# match: endpoint
# recorded_at: 2026-02-05T00:00:00Z
---
version: 2
interactions:
    - id: 0
      request:
        body: '{"model":"claude-sonnet-4-5","stream":true,"messages":[{"role":"user","content":"hello"}],"metadata":{"user_id":"sdk"}}'
        url: https://api.anthropic.com/v1/messages?beta=true
        method: POST
      response:
        body: "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        headers:
            Content-Type:
                - text/event-stream
        status: 200 OK
        code: 200
    - id: 1
      request:
        body: '{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"again"}]}'
        url: https://api.anthropic.com/v1/messages
        method: POST
      response:
        body: '{"type":"message"}'
        headers:
            Content-Type:
                - application/json
        status: 200 OK
        code: 200
`

func writeCassette(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	return path
}

func post(t *testing.T, p http.RoundTripper, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	return p.RoundTrip(req)
}

func TestEndpointMatchingForImportedCassettes(t *testing.T) {
	p, err := replay.Load(writeCassette(t, importedCassette))
	require.NoError(t, err)
	assert.Equal(t, replay.MatchEndpoint, p.Match())
	prov := p.Provenance()
	assert.Equal(t, replay.SourceImported, prov.Source)
	assert.Equal(t, "vcrpy", prov.OriginFormat)
	assert.Equal(t, "https://github.com/example/project", prov.OriginProject)

	// A plain request first: the streaming interaction does not match it.
	resp, err := post(t, p, "http://127.0.0.1/v1/messages", `{"model":"claude-sonnet-4-6","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"different words"}]}]}`)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, `{"type":"message"}`, string(body), "our adapter's own body matches on the endpoint")

	resp, err = post(t, p, "http://127.0.0.1/v1/messages", `{"model":"m","stream":true,"messages":[]}`)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	assert.Contains(t, string(body), "message_stop")
	assert.Empty(t, p.Unused())

	// Every interaction is served once: a third call cannot pass.
	_, err = post(t, p, "http://127.0.0.1/v1/messages", `{"stream":true}`)
	var me *replay.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, replay.MatchEndpoint, me.Match)
	assert.Equal(t, 1, me.Exhausted)
}

func TestEndpointMatchingStillRefusesAnotherEndpointOrMode(t *testing.T) {
	for name, tt := range map[string]struct{ url, body, diff string }{
		"another path":       {"http://h/v1/chat/completions", `{"stream":true}`, "-POST /v1/messages"},
		"stream vs not":      {"http://h/v1/messages", `{"stream":false,"messages":[]}`, "+stream: false"},
		"another method":     {"http://h/v1/messages", "", "+GET /v1/messages"},
		"alt=sse is matched": {"http://h/v1/messages?alt=json", `{"stream":true}`, "+POST /v1/messages?alt=json"},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := replay.Load(writeCassette(t, importedCassette))
			require.NoError(t, err)
			if name == "another method" {
				// GET with no body: neither method nor stream flag match.
				req, _ := http.NewRequest(http.MethodGet, tt.url, nil)
				_, err = p.RoundTrip(req)
			} else {
				// Serve the plain interaction first so that only the stream is left.
				_, err = post(t, p, "http://h/v1/messages", `{}`)
				require.NoError(t, err)
				_, err = post(t, p, tt.url, tt.body)
			}
			var me *replay.MismatchError
			require.ErrorAs(t, err, &me)
			assert.Contains(t, me.Diff, tt.diff)
			assert.Contains(t, err.Error(), "matches on the endpoint only")
		})
	}
}

func TestExactMatchingIsTheDefault(t *testing.T) {
	exact := strings.Replace(importedCassette, "# match: endpoint\n", "", 1)
	p, err := replay.Load(writeCassette(t, exact))
	require.NoError(t, err)
	assert.Equal(t, replay.MatchExact, p.Match())
	_, err = post(t, p, "http://h/v1/messages", `{"model":"claude-sonnet-4-6","messages":[]}`)
	var me *replay.MismatchError
	require.True(t, errors.As(err, &me), "a different body does not match exactly: %v", err)
}

func TestMalformedProvenanceFailsLoad(t *testing.T) {
	bad := strings.Replace(importedCassette, "# source: imported", "# source: live", 1)
	_, err := replay.Load(writeCassette(t, bad))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "match: endpoint is only for imported cassettes")
}

func TestProvenanceHeaderRoundTrips(t *testing.T) {
	p, err := replay.Load(writeCassette(t, importedCassette))
	require.NoError(t, err)
	again, err := replay.ParseProvenance("again.yaml", p.Provenance().Header())
	require.NoError(t, err)
	assert.Equal(t, p.Provenance(), again)
}

func TestEndpointKeyLeavesOutTheGeminiModelAndReadsTheStreamMethod(t *testing.T) {
	key := func(raw, body string) string {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		return replay.EndpointKey(http.MethodPost, u, strings.Contains(body, `"stream":true`) || strings.HasSuffix(u.Path, ":streamGenerateContent"))
	}
	assert.Equal(t, "POST /v1beta/models/*:streamGenerateContent?alt=sse\nstream: true\n",
		key("https://g/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse&key=x", ""))
	assert.Equal(t, "POST /v1beta/models/*:generateContent\nstream: false\n", key("https://g/v1beta/models/gemini-2.0-flash:generateContent", ""))
	assert.Equal(t, "POST /v1/messages\nstream: true\n", key("https://a/v1/messages?beta=true", `{"stream":true}`))
}

// A recording that kept only the response of a streamed call still
// serves a streaming request.
func TestEndpointMatchingInfersAStreamFromTheRecordedResponse(t *testing.T) {
	noBody := strings.Replace(importedCassette, `        body: '{"model":"claude-sonnet-4-5","stream":true,"messages":[{"role":"user","content":"hello"}],"metadata":{"user_id":"sdk"}}'`+"\n", "", 1)
	require.NotEqual(t, importedCassette, noBody)
	p, err := replay.Load(writeCassette(t, noBody))
	require.NoError(t, err)
	resp, err := post(t, p, "http://h/v1/messages", `{"stream":true}`)
	require.NoError(t, err)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
}
