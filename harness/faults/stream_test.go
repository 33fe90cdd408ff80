package faults_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
)

const (
	anthropicStream = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	responsesStream = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"event: response.in_progress\ndata: {\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"delta\":\"Hi\"}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":3}\n\n"
	chatStream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: [DONE]\n\n"
	geminiStream = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n" +
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" there\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n"
)

func TestStreamFaults(t *testing.T) {
	tests := []struct {
		name  string
		url   string
		body  string
		fault faults.Fault
		want  string
	}{
		{
			name:  "anthropic error event after 2",
			url:   anthropicURL,
			body:  anthropicStream,
			fault: faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 2},
			want: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0}\n\n" +
				"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		},
		{
			name:  "anthropic error event with a verbatim body",
			url:   anthropicURL,
			body:  anthropicStream,
			fault: faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 1, Body: []byte(`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)},
			want: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
				"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n\n",
		},
		{
			name:  "openai chat error chunk",
			url:   chatURL,
			body:  chatStream,
			fault: faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 1},
			want: "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
				"data: {\"error\":{\"message\":\"The server had an error while processing your request. Sorry about that!\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n",
		},
		{
			name:  "openai responses error and response.failed",
			url:   responsesURL,
			body:  responsesStream,
			fault: faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 2, Error: faults.ErrorRateLimit, Message: "slow down"},
			want: "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
				"event: response.in_progress\ndata: {\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
				"event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,\"error\":{\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\",\"param\":null}}\n\n" +
				"event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":3,\"response\":{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"},\"id\":\"resp_1\",\"object\":\"response\",\"output\":[],\"status\":\"failed\"}}\n\n",
		},
		{
			name:  "gemini error chunk keeps CRLF",
			url:   geminiURL,
			body:  geminiStream,
			fault: faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 1, Error: faults.ErrorOverloaded},
			want: "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n" +
				"data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n",
		},
		{
			name:  "truncate after 3",
			url:   anthropicURL,
			body:  anthropicStream,
			fault: faults.Fault{Kind: faults.KindTruncate, AfterEvents: 3},
			want: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
		},
		{
			name:  "truncate after more events than there are",
			url:   chatURL,
			body:  chatStream,
			fault: faults.Fault{Kind: faults.KindTruncate, AfterEvents: 10},
			want:  chatStream,
		},
		{
			name:  "truncate at 0 gives an empty body",
			url:   geminiURL,
			body:  geminiStream,
			fault: faults.Fault{Kind: faults.KindTruncate},
			want:  "",
		},
		{
			name:  "malformed chunk inserted",
			url:   chatURL,
			body:  chatStream,
			fault: faults.Fault{Kind: faults.KindMalformed, AfterEvents: 2},
			want: "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
				"data: {not json\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
				"data: [DONE]\n\n",
		},
		{
			name:  "malformed with a body sends that data",
			url:   chatURL,
			body:  chatStream,
			fault: faults.Fault{Kind: faults.KindMalformed, AfterEvents: 1, Body: []byte(`{"choices":[{"index":9}]}`)},
			want: "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
				"data: {\"choices\":[{\"index\":9}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
				"data: [DONE]\n\n",
		},
		{
			name:  "malformed chunk in CRLF",
			url:   geminiURL,
			body:  geminiStream,
			fault: faults.Fault{Kind: faults.KindMalformed, AfterEvents: 1},
			want: "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n" +
				"data: {not json\r\n\r\n" +
				"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" there\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := sse(tt.body)
			in := faults.Transport(next, tt.fault)
			resp, err := in.RoundTrip(newRequest(t, context.Background(), tt.url))
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, 200, resp.StatusCode)
			assert.Equal(t, int64(-1), resp.ContentLength)
			assert.Empty(t, resp.Header.Get("Content-Length"))
			got, err := readAll(resp.Body)
			if tt.fault.Kind == faults.KindTruncate && tt.want != tt.body {
				require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the connection closes before the body's end")
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, 1, next.Calls())
		})
	}
}

func TestResponsesErrorEventAtStart(t *testing.T) {
	in := faults.Transport(sse(responsesStream), faults.Fault{Kind: faults.KindErrorEvent})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), responsesURL))
	require.NoError(t, err)
	got, err := readAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t,
		"event: error\ndata: {\"type\":\"error\",\"sequence_number\":0,\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"The server had an error while processing your request. Sorry about that!\",\"param\":null}}\n\n"+
			"event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"The server had an error while processing your request. Sorry about that!\"},\"id\":\"resp_injected_fault\",\"object\":\"response\",\"output\":[],\"status\":\"failed\"}}\n\n",
		got)
}

func TestErrorEventNeedsAnEventStream(t *testing.T) {
	next := &fakeNext{contentType: "application/json", body: `{"id":"msg_1"}`}
	in := faults.Transport(next, faults.Fault{Kind: faults.KindErrorEvent})
	_, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	assert.EqualError(t, err, `faults: error_event needs an event-stream response (text/event-stream, application/vnd.amazon.eventstream or application/x-ndjson), but POST /v1/messages answered "application/json"`)
}

func TestTruncateJSONBody(t *testing.T) {
	next := &fakeNext{contentType: "application/json", body: `{"id":"msg_1"}`}
	in := faults.Transport(next, faults.Fault{Kind: faults.KindTruncate})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err)
	got, err := readAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the connection closes before the body's end")
	assert.Empty(t, got, "a JSON body is one event: truncating at 0 empties it")
}

func TestStreamFaultsLeaveErrorResponsesAlone(t *testing.T) {
	next := &fakeNext{status: 404, contentType: "application/json", body: `{"error":"nope"}`}
	in := faults.Transport(next, faults.Fault{Kind: faults.KindTruncate})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err)
	got, err := readAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"error":"nope"}`, got)
	assert.Equal(t, 1, in.Injected(), "the attempt still counts as faulted")
}

func TestResetBeforeResponse(t *testing.T) {
	next := sse(anthropicStream)
	in := faults.Transport(next, faults.Fault{Kind: faults.KindReset, AfterEvents: faults.BeforeResponse})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	assert.Nil(t, resp)
	var op *net.OpError
	require.True(t, errors.As(err, &op), "got %T", err)
	assert.True(t, errors.Is(err, syscall.ECONNRESET))
	assert.Equal(t, "read", op.Op)
	assert.Zero(t, next.Calls())
}

func TestResetMidStream(t *testing.T) {
	in := faults.Transport(sse(anthropicStream), faults.Fault{Kind: faults.KindReset, AfterEvents: 1})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err)
	got, err := readAll(resp.Body)
	assert.Equal(t, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", got)
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "got %v", err)
}

func TestStallBeforeResponse(t *testing.T) {
	next := sse(anthropicStream)
	in := faults.Transport(next, faults.Fault{Kind: faults.KindStall, AfterEvents: faults.BeforeResponse})
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result)
	go func() {
		resp, err := in.RoundTrip(newRequest(t, ctx, anthropicURL))
		done <- result{resp, err}
	}()
	cancel()
	r := <-done
	assert.Nil(t, r.resp)
	assert.ErrorIs(t, r.err, context.Canceled)
	assert.Zero(t, next.Calls())
}

func TestStallMidStream(t *testing.T) {
	in := faults.Transport(sse(anthropicStream), faults.Fault{Kind: faults.KindStall, AfterEvents: 2})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	resp, err := in.RoundTrip(newRequest(t, ctx, anthropicURL))
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	for range 2 {
		_, err := resp.Body.Read(buf)
		require.NoError(t, err)
	}
	errc := make(chan error)
	go func() {
		_, err := resp.Body.Read(buf)
		errc <- err
	}()
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
}

func TestStallWokenByClose(t *testing.T) {
	in := faults.Transport(sse(anthropicStream), faults.Fault{Kind: faults.KindStall})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err)
	errc := make(chan error)
	go func() {
		_, err := resp.Body.Read(make([]byte, 10))
		errc <- err
	}()
	require.NoError(t, resp.Body.Close())
	assert.Error(t, <-errc)
	assert.NoError(t, resp.Body.Close(), "a second Close is harmless")
}

func TestCancelMidStream(t *testing.T) {
	in := faults.Transport(sse(anthropicStream), faults.Fault{Kind: faults.KindTruncate, AfterEvents: 3})
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := in.RoundTrip(newRequest(t, ctx, anthropicURL))
	require.NoError(t, err)
	buf := make([]byte, 10)
	_, err = resp.Body.Read(buf)
	require.NoError(t, err)
	cancel()
	_, err = resp.Body.Read(buf)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestDrip(t *testing.T) {
	var slept []time.Duration
	in := faults.Transport(sse(chatStream), faults.Fault{Kind: faults.KindDrip, ChunkBytes: 5, Delay: 30 * time.Millisecond})
	in.Sleep = func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d)
		return ctx.Err()
	}
	resp, err := in.RoundTrip(newRequest(t, context.Background(), chatURL))
	require.NoError(t, err)
	buf := make([]byte, 4096)
	var got []byte
	reads := 0
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			assert.LessOrEqual(t, n, 5)
			reads++
		}
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	assert.Equal(t, chatStream, string(got))
	wantReads := (len(chatStream) + 4) / 5
	assert.Equal(t, wantReads, reads)
	require.NotEmpty(t, slept)
	assert.Equal(t, 30*time.Millisecond, slept[0])
	assert.Len(t, slept, wantReads, "a pause before every piece after the first, and before the final EOF read")
}

func TestDripWithoutSleepNeverPauses(t *testing.T) {
	in := faults.Transport(sse(chatStream), faults.Fault{Kind: faults.KindDrip, Delay: time.Hour})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), chatURL))
	require.NoError(t, err)
	got, err := readAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, chatStream, got)
}

func TestTimesAndSequence(t *testing.T) {
	next := sse(anthropicStream)
	in := faults.Transport(next,
		faults.Fault{Kind: faults.KindStatus, Status: 429, Times: 2, Body: []byte(`{"type":"error"}`)},
		faults.Fault{Kind: faults.KindTruncate, AfterEvents: 1},
	)
	type answer struct {
		status int
		body   string
	}
	var got []answer
	for range 4 {
		resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
		require.NoError(t, err)
		body, err := readAll(resp.Body)
		if err != nil {
			require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the truncated answer")
		}
		resp.Body.Close()
		got = append(got, answer{resp.StatusCode, body})
	}
	if diff := cmp.Diff([]answer{
		{429, `{"type":"error"}`},
		{429, `{"type":"error"}`},
		{200, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"},
		{200, anthropicStream},
	}, got, cmp.AllowUnexported(answer{})); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	assert.Equal(t, 4, in.Attempts())
	assert.Equal(t, 3, in.Injected())
	assert.Equal(t, 0, in.Remaining())
	assert.Equal(t, 2, next.Calls(), "the status faults never reach the next transport")
}

func TestFromSpec(t *testing.T) {
	rt, err := faults.FromSpec(map[string]any{"status": float64(500), "times": float64(2)}, sse(anthropicStream))
	require.NoError(t, err)
	in := rt.(*faults.Injector)
	assert.Equal(t, 2, in.Remaining())

	_, err = faults.FromSpec(map[string]any{"kind": "nope"}, nil)
	var fe *faults.FieldError
	assert.ErrorAs(t, err, &fe)
}

// eventPerRead is a next transport whose body hands out one server-sent
// event per Read, as replay does.
type eventPerRead struct{ body string }

func (e eventPerRead) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: replay.NewBody(req.Context(), []byte(e.body), true, 0), ContentLength: -1, Request: req,
	}, nil
}

// TestBurst: a burst body fills each Read with as many events as fit,
// where the body under it hands out one per Read; a small buffer is
// filled to the brim; once the context is done reads fail.
func TestBurst(t *testing.T) {
	in := faults.Transport(eventPerRead{anthropicStream}, faults.Fault{Kind: faults.KindBurst})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err)
	buf := make([]byte, 64<<10)
	n, err := resp.Body.Read(buf)
	assert.Equal(t, anthropicStream, string(buf[:n]), "the whole stream in the first read")
	if err == nil {
		n, err = resp.Body.Read(buf)
		assert.Zero(t, n)
	}
	assert.ErrorIs(t, err, io.EOF)

	ctx, cancel := context.WithCancel(context.Background())
	in = faults.Transport(eventPerRead{anthropicStream}, faults.Fault{Kind: faults.KindBurst})
	resp, err = in.RoundTrip(newRequest(t, ctx, anthropicURL))
	require.NoError(t, err)
	small := make([]byte, 100)
	n, err = resp.Body.Read(small)
	require.NoError(t, err)
	assert.Equal(t, anthropicStream[:100], string(small[:n]), "100 bytes, across the first two events")
	cancel()
	_, err = resp.Body.Read(small)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestBodyFault: a body fault answers a success status with its body, or
// with the provider's own error body, without calling the next transport.
func TestBodyFault(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		fault     faults.Fault
		status    int
		ctype     string
		body      string
	}{
		{"an HTML page", anthropicURL, faults.Fault{Kind: faults.KindBody, Body: []byte("<html>502</html>"), ContentType: "text/html"},
			200, "text/html", "<html>502</html>"},
		{"JSON null", chatURL, faults.Fault{Kind: faults.KindBody, Body: []byte("null")}, 200, "application/json", "null"},
		{"Anthropic's error body", anthropicURL, faults.Fault{Kind: faults.KindBody, Status: 200, Error: faults.ErrorServer, Message: "boom"},
			200, "application/json", `{"type":"error","error":{"type":"api_error","message":"boom"}}`},
		{"Gemini's error body", geminiURL, faults.Fault{Kind: faults.KindBody, Status: 203, Error: faults.ErrorServer, Message: "boom"},
			203, "application/json", `{"error":{"code":500,"message":"boom","status":"INTERNAL"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := sse(anthropicStream)
			resp, err := faults.Transport(next, tc.fault).RoundTrip(newRequest(t, context.Background(), tc.url))
			require.NoError(t, err)
			got, err := readAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.ctype, resp.Header.Get("Content-Type"))
			assert.JSONEq(t, jsonOrString(tc.body), jsonOrString(got))
			assert.Equal(t, int64(len(got)), resp.ContentLength)
			assert.Zero(t, next.Calls(), "the server is not asked")
		})
	}
}

// jsonOrString makes a body comparable with JSONEq whether or not it is
// JSON.
func jsonOrString(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// A reset after 0 events strikes after the response headers, at the
// body's first read: the caller has a response (after_events 0 is not
// before the response, which is BeforeResponse, -1).
func TestResetAtTheFirstRead(t *testing.T) {
	next := sse(anthropicStream)
	in := faults.Transport(next, faults.Fault{Kind: faults.KindReset, AfterEvents: 0})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err, "the headers arrive")
	assert.Equal(t, 1, next.Calls())
	got, err := readAll(resp.Body)
	resp.Body.Close()
	assert.Empty(t, got)
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "got %v", err)
}

// An error_event whose body is given sends it as one event's data, with
// the stream's own line ends, or LF (CRLF on Gemini) when no event came
// first.
func TestErrorEventBodyLineEnds(t *testing.T) {
	for _, tt := range []struct {
		name, url, body string
		after           int
		want            string
	}{
		{"Chat, before any event", chatURL, chatStream, 0, "data: {\"error\":1}\n\n"},
		{"Gemini, before any event", geminiURL, geminiStream, 0, "data: {\"error\":1}\r\n\r\n"},
		{"Gemini, after a CRLF event", geminiURL, geminiStream, 1, "\r\n\r\ndata: {\"error\":1}\r\n\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := faults.Transport(sse(tt.body), faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: tt.after, Body: []byte(`{"error":1}`)})
			resp, err := in.RoundTrip(newRequest(t, context.Background(), tt.url))
			require.NoError(t, err)
			got, _ := readAll(resp.Body)
			resp.Body.Close()
			if tt.after == 0 {
				assert.Equal(t, tt.want, got)
			} else {
				assert.Contains(t, got, tt.want)
			}
		})
	}
}

// NeedsStream names the kinds that only alter an event stream.
func TestNeedsStream(t *testing.T) {
	want := map[faults.Kind]bool{faults.KindErrorEvent: true, faults.KindMalformed: true, faults.KindBurst: true}
	for _, k := range faults.Kinds() {
		assert.Equal(t, want[k], faults.NeedsStream(k), "%s", k)
	}
}
