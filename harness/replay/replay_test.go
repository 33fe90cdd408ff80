package replay_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/replay"
)

func TestSplitEvents(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"LF", "data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}},
		{"CRLF (Gemini)", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"data: a\r\n\r\n", "data: b\r\n\r\n"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"data: a\r\r", "data: b\r\r"}},
		{"multi-line event", "event: x\ndata: 1\ndata: 2\n\n", []string{"event: x\ndata: 1\ndata: 2\n\n"}},
		{"leading blank lines stay with the event", "\n\ndata: a\n\n", []string{"\n\ndata: a\n\n"}},
		{"unterminated tail", "data: a\n\ndata: b\n", []string{"data: a\n\n", "data: b\n"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range replay.SplitEvents([]byte(tt.body)) {
				got = append(got, string(e))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzSplitEvents(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: b\n\n"))
	f.Add([]byte("data: a\r\n\r\n\r\ndata: b"))
	f.Add([]byte("\r\r\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var joined []byte
		for _, e := range replay.SplitEvents(body) {
			if len(e) == 0 {
				t.Fatal("empty event")
			}
			joined = append(joined, e...)
		}
		if string(joined) != string(body) {
			t.Fatalf("events do not concatenate to the body: %q vs %q", joined, body)
		}
	})
}

func load(t *testing.T) *replay.Player {
	t.Helper()
	p, err := replay.Load("testdata/stream.yaml")
	require.NoError(t, err)
	return p
}

func newRequest(t *testing.T, ctx context.Context, url, body string, h map[string]string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	return req
}

var anthropicHeaders = map[string]string{"anthropic-version": "2023-06-01", "User-Agent": "something-else/9", "x-api-key": "sk-test-FAKE"}

// streamBody is interaction 0's request with keys reordered and spaced.
const streamBody = `{"stream": true, "messages": [{"content": "Hi", "role": "user"}], "max_tokens": 1024, "model": "claude-sonnet-4-6"}`

func TestPlayerDeliversOneEventPerRead(t *testing.T) {
	p := load(t)
	resp, err := p.RoundTrip(newRequest(t, context.Background(), "http://127.0.0.1:9/v1/messages", streamBody, anthropicHeaders))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, int64(-1), resp.ContentLength)

	buf := make([]byte, 4096)
	var reads []string
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			reads = append(reads, string(buf[:n]))
		}
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	if diff := cmp.Diff([]string{
		"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hel\"}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"lo\"}}\n\n",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	}, reads); diff != "" {
		t.Errorf("reads mismatch (-want +got):\n%s", diff)
	}
}

func TestPlayerCancelMidBody(t *testing.T) {
	p := load(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := p.RoundTrip(newRequest(t, ctx, "https://api.anthropic.com/v1/messages", streamBody, anthropicHeaders))
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 10) // smaller than the first event: stop inside it
	n, err := resp.Body.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "event: mes", string(buf[:n]))
	cancel()
	_, err = resp.Body.Read(buf)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = resp.Body.Read(buf)
	assert.ErrorIs(t, err, context.Canceled, "reads keep failing after cancellation")
}

func TestPlayerReadAfterClose(t *testing.T) {
	p := load(t)
	resp, err := p.RoundTrip(newRequest(t, context.Background(), "https://api.anthropic.com/v1/messages", streamBody, anthropicHeaders))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	_, err = resp.Body.Read(make([]byte, 8))
	assert.Error(t, err)
	assert.NoError(t, resp.Body.Close(), "second Close is harmless")
}

func TestPlayerServesIdenticalRequestsInOrderOnce(t *testing.T) {
	p := load(t)
	body := `{"model":"claude-sonnet-4-6","max_tokens":1024,"messages":[{"role":"user","content":"Again"}]}`
	for _, want := range []string{"first", "second"} {
		resp, err := p.RoundTrip(newRequest(t, context.Background(), "https://api.anthropic.com/v1/messages", body, anthropicHeaders))
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Contains(t, string(got), want)
		assert.Equal(t, int64(len(got)), resp.ContentLength)
	}
	_, err := p.RoundTrip(newRequest(t, context.Background(), "https://api.anthropic.com/v1/messages", body, anthropicHeaders))
	var me *replay.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 2, me.Exhausted)
	assert.Contains(t, err.Error(), "2 identical recorded request(s) were already served")
}

func TestPlayerIgnoresGeminiKey(t *testing.T) {
	p := load(t)
	resp, err := p.RoundTrip(newRequest(t, context.Background(),
		"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=sk-test-FAKE",
		`{"contents":[{"parts":[{"text":"Hi"}],"role":"user"}]}`, nil))
	require.NoError(t, err)
	resp.Body.Close()
}

func TestPlayerHeaderAllowlist(t *testing.T) {
	p := load(t)
	h := map[string]string{"anthropic-version": "2024-01-01"}
	_, err := p.RoundTrip(newRequest(t, context.Background(), "https://api.anthropic.com/v1/messages", streamBody, h))
	var me *replay.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 0, me.Nearest)
	assert.Contains(t, me.Diff, "-anthropic-version: 2023-06-01\n+anthropic-version: 2024-01-01\n")
}

func TestPlayerMismatchDiff(t *testing.T) {
	p := load(t)
	body := `{"model":"claude-sonnet-4-6","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hello"}]}`
	_, err := p.RoundTrip(newRequest(t, context.Background(), "https://api.anthropic.com/v1/messages?key=sk-test-FAKE", body, anthropicHeaders))
	var me *replay.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 0, me.Nearest)
	assert.Contains(t, err.Error(), "(-want +got)")
	assert.Contains(t, me.Diff, `-      "content": "Hi",`+"\n"+`+      "content": "Hello",`+"\n")
	assert.NotContains(t, err.Error(), "sk-test-FAKE", "keys never reach error messages")
}

func TestPlayerUnused(t *testing.T) {
	p := load(t)
	resp, err := p.RoundTrip(newRequest(t, context.Background(), "https://api.anthropic.com/v1/messages", streamBody, anthropicHeaders))
	require.NoError(t, err)
	resp.Body.Close()
	var ids []int
	for _, in := range p.Unused() {
		ids = append(ids, in.ID)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, ids); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}
}

func TestPlayerCancelledBeforeRoundTrip(t *testing.T) {
	p := load(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.RoundTrip(newRequest(t, ctx, "https://api.anthropic.com/v1/messages", streamBody, anthropicHeaders))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, p.Unused(), 4, "a cancelled request consumes nothing")
}

func TestLoadMissing(t *testing.T) {
	_, err := replay.Load("testdata/nope")
	assert.True(t, errors.Is(err, replay.ErrNoCassette))
	assert.EqualError(t, err, "no cassette testdata/nope.yaml")
}

func TestNormalizeIDs(t *testing.T) {
	in := `tu_01JABCDEFGHJKMNPQRSTVWXYZ0 tu_01JABCDEFGHJKMNPQRSTVWXYZ1 tu_01JABCDEFGHJKMNPQRSTVWXYZ0 req_01JABCDEFGHJKMNPQRSTVWXYZ0 toolu_01abc call_XYZ`
	assert.Equal(t, `tu_1 tu_2 tu_1 req_1 toolu_01abc call_XYZ`, replay.NormalizeIDs(in))
}

func TestCanonicalJSON(t *testing.T) {
	got, err := replay.CanonicalJSON([]byte(`{"b":1.50,"a":{"d":"<x>","c":[1,2]}}`))
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"a\": {\n    \"c\": [\n      1,\n      2\n    ],\n    \"d\": \"<x>\"\n  },\n  \"b\": 1.50\n}\n", string(got))
}

func TestResplit(t *testing.T) {
	next := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: 200,
			Header:     http.Header{"Content-Type": {"text/event-stream"}},
			Body:       io.NopCloser(strings.NewReader("data: 1\n\ndata: 2\n\ndata: 3\n\n")),
			Request:    req,
		}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := replay.Resplit(next).RoundTrip(newRequest(t, ctx, "http://emulator/v1/messages", "{}", nil))
	require.NoError(t, err)
	buf := make([]byte, 100)
	n, err := resp.Body.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "data: 1\n\n", string(buf[:n]))
	cancel()
	_, err = resp.Body.Read(buf)
	assert.ErrorIs(t, err, context.Canceled)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func TestMatcher(t *testing.T) {
	m := replay.Matcher()
	rec := cassette.Request{
		Method:  "POST",
		URL:     "https://api.anthropic.com/v1/messages",
		Body:    `{"a":1,"b":[1,2]}`,
		Headers: http.Header{"Anthropic-Version": {"2023-06-01"}},
	}
	req := newRequest(t, context.Background(), "http://127.0.0.1:1/v1/messages", `{"b":[1,2], "a":1}`, map[string]string{"anthropic-version": "2023-06-01", "x-api-key": "sk-test-FAKE"})
	assert.True(t, m(req, rec))
	body, err := io.ReadAll(req.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"b":[1,2], "a":1}`, string(body), "the body is restored")
	req = newRequest(t, context.Background(), "http://127.0.0.1:1/v1/messages", `{"a":2,"b":[1,2]}`, map[string]string{"anthropic-version": "2023-06-01"})
	assert.False(t, m(req, rec))
}
