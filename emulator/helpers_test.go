package emulator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/emulator"
)

// Obviously fake keys.
const (
	testKey      = "sk-test-FAKE"
	testGoogKey  = "goog-test-FAKE"
	anthropicVer = "2023-06-01"
)

// client never keeps connections alive, so no goroutine outlives a test.
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// start returns a started emulator closed at the end of the test.
func start(t *testing.T, opts ...emulator.Option) *emulator.Server {
	t.Helper()
	srv := emulator.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// call is one HTTP request to the emulator.
type call struct {
	method string
	path   string
	header map[string]string
	body   string
}

// do sends c and returns the status, headers and body.
func do(t *testing.T, srv *emulator.Server, c call) (int, http.Header, string) {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodPost
	}
	req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
	require.NoError(t, err)
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(body)
}

// The requests each API's tests send, keyed.
func anthropicCall(body string) call {
	return call{path: "/v1/messages", body: body, header: map[string]string{"x-api-key": testKey, "anthropic-version": anthropicVer}}
}

func chatCall(body string) call {
	return call{path: "/v1/chat/completions", body: body, header: map[string]string{"Authorization": "Bearer " + testKey}}
}

func responsesCall(body string) call {
	return call{path: "/v1/responses", body: body, header: map[string]string{"Authorization": "Bearer " + testKey}}
}

func geminiCall(model string, stream bool, body string) call {
	path := "/v1beta/models/" + model + ":generateContent"
	if stream {
		path = "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
	}
	return call{path: path, body: body, header: map[string]string{"x-goog-api-key": testGoogKey}}
}

// event is one parsed server-sent event.
type event struct {
	name string
	data string // the data line's value, padding kept
}

// splitSSE cuts an SSE body into events at sep ("\n\n" or "\r\n\r\n"),
// failing on anything that is not an event: or data: line.
func splitSSE(t *testing.T, body, sep string) []event {
	t.Helper()
	eol := strings.TrimSuffix(sep, sep[:len(sep)/2])
	require.True(t, strings.HasSuffix(body, sep), "stream must end with a blank line")
	var out []event
	for _, block := range strings.Split(strings.TrimSuffix(body, sep), sep) {
		var ev event
		for _, line := range strings.Split(block, eol) {
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case strings.HasPrefix(line, ":"):
				// A comment (keep-alive such as OpenRouter's processing notes).
			default:
				t.Fatalf("unexpected SSE line %q", line)
			}
		}
		if ev.name != "" || ev.data != "" {
			out = append(out, ev)
		}
	}
	return out
}

// obj decodes one JSON object into a generic map.
func obj(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&m), "decoding %q", data)
	return m
}

// at walks a decoded JSON value by keys and array indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "want object for %q in %v", k, path)
			v, ok = m[k]
			require.True(t, ok, "missing key %q in %v", k, path)
		case int:
			a, ok := v.([]any)
			require.True(t, ok, "want array for [%d] in %v", k, path)
			require.Less(t, k, len(a), "index %d in %v", k, path)
			v = a[k]
		}
	}
	return v
}

// num turns a json.Number into an int for comparisons.
func num(t *testing.T, v any) int {
	t.Helper()
	n, ok := v.(json.Number)
	require.True(t, ok, "want a number, got %T %v", v, v)
	i, err := n.Int64()
	require.NoError(t, err)
	return int(i)
}

// fixturesDir returns the real recordings vendored in testdata/recordings.
func fixturesDir(t testing.TB) string {
	t.Helper()
	return adaptertest.FixturesDir(t)
}

// compactJSON re-encodes a JSON text compactly, for comparisons.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, []byte(s)))
	return buf.String()
}
