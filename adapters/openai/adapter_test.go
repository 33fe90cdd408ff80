package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// testServer serves scripted answers and records requests.
type testServer struct {
	mu       sync.Mutex
	requests []recorded
	answer   func(n int, w http.ResponseWriter, r *http.Request)
}

type recorded struct {
	path   string
	header http.Header
	body   []byte
}

func (s *testServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, recorded{r.URL.Path, r.Header.Clone(), body})
	n := len(s.requests)
	s.mu.Unlock()
	s.answer(n, w, r)
}

func (s *testServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func serve(status int, contentType string, body []byte) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.Write(body)
	}
}

// newTestAdapter starts ts on loopback and returns an adapter pointed at
// it, with a fake clock and its own transport.
func newTestAdapter(t *testing.T, ts *testServer, mut func(*adapters.Config)) (*driver.Adapter, *adaptertest.Clock) {
	t.Helper()
	srv := httptest.NewServer(ts)
	tr := &http.Transport{}
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	clock := adaptertest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	cfg := adapters.Config{
		Name: "openai", APIKey: "sk-test-FAKE", BaseURL: srv.URL, MaxRetries: 2, Clock: clock, Transport: tr,
		Options:      map[string]any{"organization": "org-test", "project": "proj-test"},
		ExtraHeaders: map[string]string{"X-Test": "yes"},
		Logger:       discardLogger(),
		Models: map[string]adapters.ModelConfig{
			"openai:gpt-4.1": {WireName: "gpt-4.1", Options: map[string]any{"dialect": "chat"}},
			"openai:gpt-5":   {WireName: "gpt-5", Options: map[string]any{"dialect": "responses"}},
		},
	}
	if mut != nil {
		mut(&cfg)
	}
	a, err := New(cfg)
	require.NoError(t, err)
	return a, clock
}

func userRequest(model, q string) *canonical.Request {
	return &canonical.Request{RequestID: "req_test", Model: model, Messages: []canonical.Message{msg("u1", canonical.RoleUser, text(q))}}
}

func collect(seq func(func(canonical.StreamEvent, error) bool)) ([]canonical.StreamEvent, []error) {
	var evs []canonical.StreamEvent
	var errs []error
	for ev, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		evs = append(evs, ev)
	}
	return evs, errs
}

func TestNewRequiresKey(t *testing.T) {
	_, err := New(adapters.Config{APIKeyEnv: "MY_OPENAI_KEY"})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Contains(t, ae.Message, "MY_OPENAI_KEY")
	a, err := New(adapters.Config{BaseURL: "http://localhost:9999"})
	require.NoError(t, err, "a proxy may authenticate otherwise")
	assert.Equal(t, "openai", a.Name())
}

// TestAdapterRoutesDialects: the dialect option picks the endpoint; both
// carry the same auth and organisation headers.
func TestAdapterRoutesDialects(t *testing.T) {
	responsesBody := fixture(t, "openai-responses", "nonstream-function-call", "response.json")
	chatBody := fixture(t, "openai-chat", "nonstream-tool-call", "response.json")
	ts := &testServer{answer: func(_ int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/responses") {
			w.Write(responsesBody)
			return
		}
		w.Write(chatBody)
	}}
	a, _ := newTestAdapter(t, ts, nil)
	ctx := context.Background()

	resp, err := a.Complete(ctx, userRequest("openai:gpt-5", "What is the capital of PotatoLand?"))
	require.NoError(t, err)
	assert.Equal(t, "get_capital", resp.Content.ToolUses()[0].Name)
	assert.Equal(t, fixture(t, "openai-responses", "nonstream-function-call", "response.json"), []byte(resp.RawBody))

	resp, err = a.Complete(ctx, userRequest("openai:gpt-4.1", "What is the capital of England?"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"country":"England"}`, string(resp.Content.ToolUses()[0].Input))

	require.Equal(t, 2, ts.count())
	for i, want := range []struct{ path, model string }{{"/v1/responses", "gpt-5"}, {"/v1/chat/completions", "gpt-4.1"}} {
		r := ts.requests[i]
		assert.Equal(t, want.path, r.path)
		assert.Equal(t, "Bearer sk-test-FAKE", r.header.Get("Authorization"))
		assert.Equal(t, "org-test", r.header.Get("OpenAI-Organization"))
		assert.Equal(t, "proj-test", r.header.Get("OpenAI-Project"))
		assert.Equal(t, "yes", r.header.Get("X-Test"))
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
		assert.Equal(t, want.model, decodeJSON(t, r.body)["model"])
		assert.NotContains(t, decodeJSON(t, r.body), "stream")
	}
	assert.Equal(t, false, decodeJSON(t, ts.requests[0].body)["store"])
}

// TestAdapterStreamsFixtures is 000 §10.1 check 6 through the whole
// runtime: every recorded stream yields events meeting the §5.2
// invariants and ending in one message.complete.
func TestAdapterStreamsFixtures(t *testing.T) {
	cases := []struct{ api, name, model string }{
		{"openai-chat", "stream-image-data-url-input", "openai:gpt-4.1"},
		{"openai-chat", "stream-parallel-tool-calls", "openai:gpt-4.1"},
		{"openai-chat", "stream-reasoning-o3-mini-include-usage", "openai:gpt-4.1"},
		{"openai-chat", "stream-text-include-usage", "openai:gpt-4.1"},
		{"openai-chat", "stream-tool-call-include-usage", "openai:gpt-4.1"},
		{"openai-responses", "stream-function-call", "openai:gpt-5"},
		{"openai-responses", "stream-function-call-reasoning-flex", "openai:gpt-5"},
		{"openai-responses", "stream-reasoning-summary-text", "openai:gpt-5"},
		{"openai-responses", "stream-reasoning-summary-then-function-call", "openai:gpt-5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := &testServer{answer: serve(200, "text/event-stream", fixture(t, c.api, c.name, "response.txt"))}
			a, _ := newTestAdapter(t, ts, nil)
			evs, errs := collect(a.Stream(context.Background(), userRequest(c.model, "hi")))
			assert.Empty(t, errs)
			assert.Empty(t, streamcheck.Check(evs))
			last := evs[len(evs)-1]
			require.Equal(t, canonical.EventMessageComplete, last.Type)
			assert.NotEqual(t, canonical.StopError, last.Response.StopReason)
			assert.Equal(t, "text/event-stream", ts.requests[0].header.Get("Accept"))
			body := decodeJSON(t, ts.requests[0].body)
			assert.Equal(t, true, body["stream"])
			if c.api == "openai-chat" {
				if diff := cmp.Diff(map[string]any{"include_usage": true}, body["stream_options"]); diff != "" {
					t.Errorf("body.stream_options mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestAdapterStreamErrorEvent: an error event after the stream began
// completes the message with stop reason error, then yields the error
// (000 §6.5); quota exhaustion is not retried.
func TestAdapterStreamErrorEvent(t *testing.T) {
	body := chunksToSSE(t, fixture(t, "openai-responses", "stream-error-event-insufficient-quota", "response.chunks.jsonl"))
	ts := &testServer{answer: serve(200, "text/event-stream", body)}
	a, _ := newTestAdapter(t, ts, nil)
	evs, errs := collect(a.Stream(context.Background(), userRequest("openai:gpt-5", "hi")))
	require.Len(t, evs, 2)
	assert.Equal(t, canonical.EventMessageStart, evs[0].Type)
	assert.Equal(t, canonical.EventMessageComplete, evs[1].Type)
	assert.Equal(t, canonical.StopError, evs[1].Response.StopReason)
	require.Len(t, errs, 1)
	var ae *canonical.AdapterError
	require.ErrorAs(t, errs[0], &ae)
	assert.Equal(t, canonical.ErrRateLimit, ae.Class)
	assert.Equal(t, canonical.CodeQuotaExceeded, ae.Code)
	assert.False(t, ae.Retryable)
	assert.Equal(t, "req_test", ae.RequestID)
	assert.Equal(t, 1, ts.count())
}

// TestStreamingUsageEqualsComplete is 000 §10.1 check 14 for the
// Responses API: the stream and the final response object it ends with
// (served as a non-streamed body) give the same canonical response.
func TestStreamingUsageEqualsComplete(t *testing.T) {
	stream := fixture(t, "openai-responses", "stream-function-call", "response.txt")
	var completed struct {
		Response json.RawMessage `json:"response"`
	}
	require.NoError(t, json.Unmarshal(sseEventData(t, stream, "response.completed", ""), &completed))

	ts := &testServer{answer: func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			serve(200, "text/event-stream", stream)(n, w, r)
			return
		}
		serve(200, "application/json", completed.Response)(n, w, r)
	}}
	a, _ := newTestAdapter(t, ts, nil)
	ids := adapters.NewToolIDMap()
	req := userRequest("openai:gpt-5", "What is the capital of France?")
	req.ToolIDs = ids
	evs, errs := collect(a.Stream(context.Background(), req))
	require.Empty(t, errs)
	streamed := evs[len(evs)-1].Response
	whole, err := a.Complete(context.Background(), req)
	require.NoError(t, err)

	want := canonical.TokenUsage{InputTokens: 255, OutputTokens: 16}
	if diff := cmp.Diff(want, streamed.Usage); diff != "" {
		t.Errorf("streamed.Usage mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, whole.Usage); diff != "" {
		t.Errorf("whole.Usage mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(streamed.Content, whole.Content); diff != "" {
		t.Errorf("whole.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, streamed.StopReason, whole.StopReason)
	assert.Equal(t, streamed.ProviderStopReason, whole.ProviderStopReason)
	assert.JSONEq(t, string(streamed.ProviderRaw), string(whole.ProviderRaw))
}

// TestRetry is 000 §10.1 check 10: transient failures (server error, rate
// limit, a dropped connection) are retried with exponential backoff on
// the injected clock; permanent ones are not; total attempts are
// 1+MaxRetries.
func TestRetry(t *testing.T) {
	ok := fixture(t, "openai-chat", "nonstream-tool-call", "response.json")
	dropConn := func(w http.ResponseWriter) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	tests := []struct {
		name     string
		script   func(n int, w http.ResponseWriter)
		attempts int
		sleeps   []time.Duration // lower bounds; jitter adds up to 25%
		class    canonical.ErrorClass
	}{
		{name: "500 then 429 then success", attempts: 3, sleeps: []time.Duration{time.Second, 2 * time.Second},
			script: func(n int, w http.ResponseWriter) {
				switch n {
				case 1:
					w.WriteHeader(500)
				case 2:
					w.WriteHeader(429)
				default:
					w.Write(ok)
				}
			}},
		{name: "dropped connection then success", attempts: 2, sleeps: []time.Duration{time.Second},
			script: func(n int, w http.ResponseWriter) {
				if n == 1 {
					dropConn(w)
					return
				}
				w.Write(ok)
			}},
		{name: "persistent 503 exhausts retries", attempts: 3, sleeps: []time.Duration{time.Second, 2 * time.Second}, class: canonical.ErrServer,
			script: func(_ int, w http.ResponseWriter) { w.WriteHeader(503) }},
		{name: "400 is not retried", attempts: 1, class: canonical.ErrInvalidRequest,
			script: func(_ int, w http.ResponseWriter) {
				w.WriteHeader(400)
				w.Write([]byte(`{"error":{"message":"bad","type":"invalid_request_error"}}`))
			}},
		{name: "insufficient_quota is not retried", attempts: 1, class: canonical.ErrRateLimit,
			script: func(_ int, w http.ResponseWriter) {
				w.WriteHeader(429)
				w.Write([]byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`))
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := &testServer{answer: func(n int, w http.ResponseWriter, _ *http.Request) { tc.script(n, w) }}
			var attempts []adapters.Attempt
			a, clock := newTestAdapter(t, ts, func(c *adapters.Config) {
				c.OnAttempt = func(at adapters.Attempt) { attempts = append(attempts, at) }
			})
			resp, err := a.Complete(context.Background(), userRequest("openai:gpt-4.1", "q"))
			assert.Equal(t, tc.attempts, ts.count())
			assert.Len(t, attempts, tc.attempts)
			require.Len(t, clock.Sleeps(), len(tc.sleeps))
			for i, min := range tc.sleeps {
				assert.GreaterOrEqual(t, clock.Sleeps()[i], min)
				assert.LessOrEqual(t, clock.Sleeps()[i], min+min/4)
			}
			if tc.class == "" {
				require.NoError(t, err)
				assert.Equal(t, canonical.StopToolUse, resp.StopReason)
				return
			}
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.attempts, ae.Attempts)
			assert.Equal(t, "openai", ae.Provider)
		})
	}
}

// TestRetryAfterHonoured is 000 §10.1 check 11, for each form of hint.
func TestRetryAfterHonoured(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		body   string
		want   time.Duration
	}{
		{"Retry-After seconds", http.Header{"Retry-After": {"2"}}, ``, 2 * time.Second},
		{"retry-after-ms", http.Header{"Retry-After-Ms": {"1500"}}, ``, 1500 * time.Millisecond},
		{"Retry-After HTTP date", http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, ``, 3 * time.Second},
		{"capped at 60 s", http.Header{"Retry-After": {"120"}}, ``, 60 * time.Second},
		{"body hint", nil, `{"error":{"message":"Rate limit reached. Please try again in 1.898s.","code":"rate_limit_exceeded"}}`, 1898 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok := fixture(t, "openai-chat", "nonstream-image-url-input", "response.json")
			ts := &testServer{answer: func(n int, w http.ResponseWriter, _ *http.Request) {
				if n == 1 {
					for k, v := range tc.header {
						w.Header()[k] = v
					}
					w.WriteHeader(429)
					w.Write([]byte(tc.body))
					return
				}
				w.Write(ok)
			}}
			a, clock := newTestAdapter(t, ts, nil)
			_, err := a.Complete(context.Background(), userRequest("openai:gpt-4.1", "q"))
			require.NoError(t, err)
			if diff := cmp.Diff([]time.Duration{tc.want}, clock.Sleeps()); diff != "" {
				t.Errorf("clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCancellation is 000 §10.1 check 12: cancelling in the middle of a
// tool's input, through Adapter.Cancel or the context, ends the tool with
// {} (its partial input does not parse), completes the message with stop
// reason cancelled, yields no error, ends the iterator and leaks nothing.
func TestCancellation(t *testing.T) {
	responsesHead := rsse(rCreated,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read_file","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"pa"}`)
	chatHead := sse(`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Reading."}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}`)
	tests := []struct {
		name     string
		model    string
		head     []byte
		byCancel bool
		blocks   int
	}{
		{"responses, Adapter.Cancel", "openai:gpt-5", responsesHead, true, 1},
		{"responses, context", "openai:gpt-5", responsesHead, false, 1},
		{"chat, Adapter.Cancel", "openai:gpt-4.1", chatHead, true, 2},
		{"chat, context", "openai:gpt-4.1", chatHead, false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Snapshot before the call; checked after it, once the
			// cleanups below (registered later, so run first) have
			// closed the server and the idle connections.
			before := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, before) })
			func() {
				ts := &testServer{answer: func(_ int, w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					w.Write(tc.head)
					w.(http.Flusher).Flush()
					<-r.Context().Done() // hold the stream open until the client goes
				}}
				a, _ := newTestAdapter(t, ts, nil)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var evs []canonical.StreamEvent
				var errs []error
				for ev, err := range a.Stream(ctx, userRequest(tc.model, "read it")) {
					if err != nil {
						errs = append(errs, err)
						continue
					}
					evs = append(evs, ev)
					if ev.Type == canonical.EventToolUseInput {
						if tc.byCancel {
							assert.True(t, a.Cancel("req_test"))
						} else {
							cancel()
						}
					}
				}
				assert.Empty(t, errs)
				assert.Empty(t, streamcheck.Check(evs))
				ends := adaptertest.EventsOf(evs, canonical.EventToolUseEnd)
				require.Len(t, ends, 1)
				assert.JSONEq(t, `{}`, string(ends[0].FinalInput))
				last := evs[len(evs)-1]
				require.Equal(t, canonical.EventMessageComplete, last.Type)
				assert.Equal(t, canonical.StopCancelled, last.Response.StopReason)
				require.Len(t, last.Response.Content, tc.blocks)
				tool := last.Response.Content[tc.blocks-1].(canonical.ToolUseBlock)
				assert.Equal(t, "read_file", tool.Name)
				assert.JSONEq(t, `{}`, string(tool.Input))
				assert.False(t, a.Cancel("req_test"), "the call is no longer registered")
				a.Close()
			}()
		})
	}
}

// TestCapabilities is 000 §10.1 check 5: declarations per model are
// honest, and a request needing a capability the model lacks is refused
// before any HTTP call.
func TestCapabilities(t *testing.T) {
	ts := &testServer{answer: serve(200, "application/json", []byte(`{"status":"completed","output":[]}`))}
	a, _ := newTestAdapter(t, ts, func(c *adapters.Config) {
		c.Models["openai:gpt-5-chat"] = adapters.ModelConfig{WireName: "gpt-5", Options: map[string]any{"dialect": "chat"}}
		c.Models["openai:no-stream"] = adapters.ModelConfig{WireName: "gpt-4o", Capabilities: json.RawMessage(`{"supports_streaming":false,"max_context_tokens":1000}`)}
	})

	gpt5 := a.Capabilities("openai:gpt-5")
	if diff := cmp.Diff(canonical.Capabilities{
		SupportsImages: true, SupportsThinking: true, SupportsTools: true, SupportsSystemPrompt: true, SupportsStructuredOutput: true,
		SupportsStreaming: true, SupportsStreamingToolCalls: true, SupportsParallelToolCalls: true,
		SupportsPromptCaching: true, SupportsSystemMessagesInList: true,
		MaxContextTokens: 400000, MaxOutputTokens: 128000,
		AcceptedImageMediaTypes: []string{"image/png", "image/jpeg", "image/gif", "image/webp"},
	}, gpt5); diff != "" {
		t.Errorf("gpt5 mismatch (-want +got):\n%s", diff)
	}
	assert.False(t, a.Capabilities("openai:gpt-5-chat").SupportsThinking, "chat drops reasoning")
	gpt41 := a.Capabilities("openai:gpt-4.1")
	assert.False(t, gpt41.SupportsThinking)
	assert.Equal(t, 1047576, gpt41.MaxContextTokens)
	assert.Equal(t, 32768, gpt41.MaxOutputTokens)
	o1mini := a.Capabilities("openai:o1-mini")
	assert.False(t, o1mini.SupportsTools)
	assert.False(t, o1mini.SupportsImages)
	assert.False(t, o1mini.SupportsStructuredOutput)
	noStream := a.Capabilities("openai:no-stream")
	assert.False(t, noStream.SupportsStreaming, "registry override applies")
	assert.Equal(t, 1000, noStream.MaxContextTokens)
	assert.True(t, noStream.SupportsImages, "fields the override leaves alone keep the adapter's value")

	png := canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}
	refused := []struct {
		name   string
		req    *canonical.Request
		stream bool
	}{
		{"tools on o1-mini", withTools(userRequest("openai:o1-mini", "q")), false},
		{"structured output on o1-mini", withSchema(userRequest("openai:o1-mini", "q")), false},
		{"images on o3-mini", &canonical.Request{Model: "openai:o3-mini", Messages: []canonical.Message{msg("u", canonical.RoleUser, png)}}, false},
		{"TIFF on gpt-4o", &canonical.Request{Model: "openai:gpt-4o", Messages: []canonical.Message{msg("u", canonical.RoleUser,
			canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "SUkq"}, MediaType: "image/tiff"})}}, false},
		{"streaming where the registry forbids it", userRequest("openai:no-stream", "q"), true},
	}
	for _, tc := range refused {
		var err error
		if tc.stream {
			_, errs := collect(a.Stream(context.Background(), tc.req))
			require.Len(t, errs, 1, tc.name)
			err = errs[0]
		} else {
			_, err = a.Complete(context.Background(), tc.req)
		}
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae, tc.name)
		assert.Equal(t, canonical.ErrInvalidRequest, ae.Class, tc.name)
		assert.Equal(t, canonical.CodeUnsupportedContent, ae.Code, tc.name)
	}
	assert.Equal(t, 0, ts.count(), "refused before any HTTP call")

	// Thinking asked of a model that cannot reason is ignored, not refused.
	req := userRequest("openai:gpt-4o", "q")
	req.Thinking = &canonical.ThinkingConfig{Effort: "high"}
	_, err := a.Complete(context.Background(), req)
	require.NoError(t, err)
	body := decodeJSON(t, ts.requests[0].body)
	assert.NotContains(t, body, "reasoning")
	assert.NotContains(t, body, "include")
}

func withTools(r *canonical.Request) *canonical.Request {
	r.Tools = []canonical.ToolDefinition{{Name: "f", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
	return r
}

func withSchema(r *canonical.Request) *canonical.Request {
	r.OutputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	return r
}

// TestToolSerializationRoundTrip is 000 §10.1 check 2: inputs of every
// shape go out verbatim as the arguments string and come back equal.
func TestToolSerializationRoundTrip(t *testing.T) {
	inputs := []string{
		`{}`,
		`{"path":"README.md"}`,
		`{"n":42,"f":-1.5e-7,"big":12345678901234567890,"t":true,"nil":null,"s":"héllo \"q\" \n\u2028"}`,
		`{"nested":{"a":{"b":{"c":[1,{"d":"e"}]}}},"list":[[],[1,2],["x"]],"empty":""}`,
		`{"order":1,"kept":2,"as":3,"written":4}`,
	}
	for _, in := range inputs {
		ids := adapters.NewToolIDMap()
		req := &canonical.Request{Model: "openai:gpt-4.1", ToolIDs: ids, Messages: []canonical.Message{
			msg("a", canonical.RoleAssistant, canonical.ToolUseBlock{ID: "tu_01J0000000000000000000000C", Name: "f", Input: json.RawMessage(in)}),
		}}
		chatBody, err := ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		args := jsonPath(t, decodeJSON(t, chatBody), "messages", 0, "tool_calls", 0, "function", "arguments").(string)
		assert.Equal(t, in, args, "chat arguments verbatim")
		respBody, err := responsesDialect{provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		assert.Equal(t, in, jsonPath(t, decodeJSON(t, respBody), "input", 0, "arguments"), "responses arguments verbatim")

		// And back: a provider answer carrying these arguments.
		quoted, _ := json.Marshal(args)
		r := runBody(ChatDialect{Provider: "openai"}.DecodeBody, []byte(`{"choices":[{"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":`+string(quoted)+`}}]},"finish_reason":"tool_calls"}]}`), ids)
		require.NoError(t, r.err)
		assert.Equal(t, in, string(r.resp.Content.ToolUses()[0].Input), "chat input verbatim")
		r = runBody(responsesDialect{provider: "openai"}.DecodeBody, []byte(`{"status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":`+string(quoted)+`}]}`), ids)
		require.NoError(t, r.err)
		assert.Equal(t, in, string(r.resp.Content.ToolUses()[0].Input), "responses input verbatim")
	}
}

// TestToolIDRoundTrip is 000 §10.1 check 3.
func TestToolIDRoundTrip(t *testing.T) {
	ids := adapters.NewToolIDMap()
	// Provider-issued: OpenAI's call id maps to a canonical id and goes
	// back out as the same call id.
	r := runDecoder(ChatDialect{Provider: "openai"}.DecodeStream, fixture(t, "openai-chat", "stream-tool-call-include-usage", "response.txt"), ids)
	require.NoError(t, r.err)
	call := r.resp.Content.ToolUses()[0]
	require.True(t, canonical.IsToolUseID(call.ID))

	// Canonical-first: a call Anthropic made (toolu_…) has a canonical id;
	// OpenAI gets that canonical id, never Anthropic's.
	fromClaude := ids.Canonical("anthropic", "toolu_01A09q90qw90lq917835lq9")
	req := &canonical.Request{Model: "openai:gpt-4.1", ToolIDs: ids, Messages: []canonical.Message{
		msg("a1", canonical.RoleAssistant, call),
		msg("t1", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: call.ID, Content: canonical.Blocks{text("London")}}),
		msg("a2", canonical.RoleAssistant, canonical.ToolUseBlock{ID: fromClaude, Name: "get_capital", Input: json.RawMessage(`{"country":"FR"}`)}),
		msg("t2", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: fromClaude, Content: canonical.Blocks{text("Paris")}}),
	}}
	for _, d := range []dialect{ChatDialect{Provider: "openai"}, responsesDialect{provider: "openai"}} {
		body, err := d.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		s := string(body)
		assert.Equal(t, 2, strings.Count(s, `"call_ZR5UUuTt3pf61kjwAJIYdVMj"`), "call and result carry OpenAI's id: %s", s)
		assert.Equal(t, 2, strings.Count(s, `"`+fromClaude+`"`), "the other provider's call goes out under its canonical id")
		assert.NotContains(t, s, "toolu_")
	}
	// An echo of that wire id from OpenAI maps back to the same call.
	assert.Equal(t, fromClaude, ids.Canonical("openai", fromClaude))
	assert.Equal(t, call.ID, ids.Canonical("openai", "call_ZR5UUuTt3pf61kjwAJIYdVMj"))
}

func TestEstimateInputTokens(t *testing.T) {
	a, err := New(adapters.Config{APIKey: "sk-test-FAKE"})
	require.NoError(t, err)
	short := a.EstimateInputTokens(userRequest("openai:gpt-5", "hi"))
	long := a.EstimateInputTokens(userRequest("openai:gpt-5", strings.Repeat("word ", 400)))
	assert.Greater(t, short, 0)
	assert.InDelta(t, 500, long, 100, "2000 bytes of English are about 500 tokens")
}

// TestRoundTrip is 000 §10.1 check 1 end to end: a fixed canonical
// conversation goes on the wire as the hand-written golden body, and the
// recorded answer comes back as the expected canonical response.
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name, golden, api, answer string
		req                       func() *canonical.Request
		want                      string
		usage                     canonical.TokenUsage
		stop                      canonical.StopReason
	}{
		{name: "chat", golden: "chat_request.json", api: "openai-chat", answer: "stream-text-include-usage", req: goldenChatRequest,
			want: `[{"type":"text","text":"The capital of the UK is London."}]`, usage: canonical.TokenUsage{InputTokens: 78, OutputTokens: 9}, stop: canonical.StopEndTurn},
		{name: "responses", golden: "responses_request.json", api: "openai-responses", answer: "stream-function-call", req: goldenResponsesRequest,
			want: `[{"type":"tool_use","name":"get_capital","input":{"country":"France"}}]`, usage: canonical.TokenUsage{InputTokens: 255, OutputTokens: 16}, stop: canonical.StopToolUse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			golden := readTestdata(t, tc.golden)
			answer := fixture(t, tc.api, tc.answer, "response.txt")
			ts := &testServer{answer: func(_ int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(answer)
			}}
			a, _ := newTestAdapter(t, ts, func(c *adapters.Config) { c.Options = nil })
			evs, errs := collect(a.Stream(context.Background(), tc.req()))
			require.Empty(t, errs)
			require.Equal(t, 1, ts.count())
			assert.JSONEq(t, string(golden), string(ts.requests[0].body), "wire request")
			resp := evs[len(evs)-1].Response
			assertContent(t, tc.want, resp.Content)
			if diff := cmp.Diff(tc.usage, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, tc.stop, resp.StopReason)
			assert.Equal(t, "req_test", resp.RequestID)
			assert.Equal(t, "openai", resp.Provider)
		})
	}
}

// TestInvalidHistoryRefused: histories that break 004 §3 fail with
// invalid_request before any HTTP call.
func TestInvalidHistoryRefused(t *testing.T) {
	ts := &testServer{answer: serve(200, "application/json", []byte(`{}`))}
	a, _ := newTestAdapter(t, ts, nil)
	bad := []*canonical.Request{
		{RequestID: "r1", Model: "openai:gpt-5"}, // empty history
		{RequestID: "r2", Model: "openai:gpt-5", Messages: []canonical.Message{
			msg("u", canonical.RoleUser, text("q")),
			msg("t", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: "tu_01J0000000000000000000000Z", Content: canonical.Blocks{text("x")}}),
		}}, // a result for a call never made
	}
	for _, req := range bad {
		_, err := a.Complete(context.Background(), req)
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
		assert.Equal(t, req.RequestID, ae.RequestID)
		assert.Equal(t, "openai", ae.Provider)
		_, errs := collect(a.Stream(context.Background(), req))
		require.Len(t, errs, 1)
		assert.Equal(t, canonical.ErrInvalidRequest, canonical.ClassOf(errs[0]))
	}
	assert.Equal(t, 0, ts.count())
}

// TestErrorClassesWithoutHTTPStatus completes check 8 for the classes
// that no response body produces: cancelled and network.
func TestErrorClassesWithoutHTTPStatus(t *testing.T) {
	ts := &testServer{answer: serve(200, "application/json", []byte(`{}`))}
	a, clock := newTestAdapter(t, ts, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.Complete(ctx, userRequest("openai:gpt-5", "q"))
	assert.Equal(t, canonical.ErrCancelled, canonical.ClassOf(err))

	// Nothing listens at the address: connection refused, retried, then
	// network.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	b, err := New(adapters.Config{APIKey: "sk-test-FAKE", BaseURL: url, MaxRetries: 1, Clock: clock, Logger: discardLogger()})
	require.NoError(t, err)
	_, err = b.Complete(context.Background(), userRequest("openai:gpt-5", "q"))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrNetwork, ae.Class)
	assert.True(t, ae.Retryable)
	assert.Equal(t, 2, ae.Attempts)
	assert.Len(t, clock.Sleeps(), 1)
	b.Close()
}
