package emulator_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestScriptExhausted(t *testing.T) {
	srv := start(t)
	for _, c := range []call{
		anthropicCall(`{"model":"m","max_tokens":1,"messages":[]}`),
		chatCall(`{"model":"m","messages":[]}`),
		responsesCall(`{"model":"m","input":"x"}`),
		geminiCall("m", false, `{"contents":[]}`),
	} {
		status, _, body := do(t, srv, c)
		assert.Equal(t, 500, status, c.path)
		assert.Contains(t, at(t, obj(t, body), "error", "message"), "script exhausted", c.path)
	}
}

func TestQueueIsSharedFIFO(t *testing.T) {
	srv := start(t)
	srv.Enqueue(emulator.Reply{Text: "first"}, emulator.Reply{Text: "second"})
	_, _, body := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
	assert.Equal(t, "first", at(t, obj(t, body), "choices", 0, "message", "content"))
	_, _, body = do(t, srv, anthropicCall(`{"model":"m","max_tokens":1,"messages":[]}`))
	assert.Equal(t, "second", at(t, obj(t, body), "content", 0, "text"))
	assert.Equal(t, 0, srv.Pending())
}

func TestResponder(t *testing.T) {
	var calls []emulator.Call
	srv := start(t, emulator.WithResponder(func(c emulator.Call) (emulator.Reply, error) {
		calls = append(calls, c)
		if c.API == emulator.Gemini {
			return emulator.Reply{}, errors.New("no gemini today")
		}
		return emulator.Reply{Text: "via " + string(c.API)}, nil
	}))
	_, _, body := do(t, srv, responsesCall(`{"model":"gpt-5","input":"x","stream":false}`))
	assert.Equal(t, "via openai-responses", at(t, obj(t, body), "output", 0, "content", 0, "text"))
	status, _, body := do(t, srv, geminiCall("g", true, `{"contents":[]}`))
	assert.Equal(t, 500, status)
	assert.Contains(t, at(t, obj(t, body), "error", "message"), "no gemini today")
	require.Len(t, calls, 2)
	assert.Equal(t, emulator.Call{API: emulator.OpenAIResponses, Model: "gpt-5", Body: []byte(`{"model":"gpt-5","input":"x","stream":false}`)}, calls[0])
	assert.Equal(t, emulator.Gemini, calls[1].API)
	assert.Equal(t, "g", calls[1].Model)
	assert.True(t, calls[1].Stream)
}

func TestBadRequests(t *testing.T) {
	tests := []struct {
		name    string
		c       call
		status  int
		message string
	}{
		{"anthropic without version", call{path: "/v1/messages", header: map[string]string{"x-api-key": testKey}, body: `{}`},
			400, "anthropic-version: header is required"},
		{"anthropic bad json", anthropicCall(`{"model":`), 400, "There was an error parsing the body"},
		{"anthropic no max_tokens", anthropicCall(`{"model":"m","messages":[]}`), 400, "max_tokens: Field required"},
		{"anthropic no model", anthropicCall(`{"max_tokens":1,"messages":[]}`), 400, "model: Field required"},
		{"chat bad json", chatCall(`[1,2`), 400, "We could not parse the JSON body"},
		{"chat no model", chatCall(`{"messages":[]}`), 400, "you must provide a model parameter"},
		{"chat no messages", chatCall(`{"model":"m"}`), 400, "Missing required parameter: 'messages'."},
		{"responses no model", responsesCall(`{"input":"x"}`), 400, "Missing required parameter: 'model'."},
		{"responses bad reasoning", responsesCall(`{"model":"m","reasoning":"high"}`), 400, "Invalid type for 'reasoning'"},
		{"gemini bad json", geminiCall("g", false, `nope`), 400, "Invalid JSON payload received."},
		{"gemini no contents", geminiCall("g", false, `{}`), 400, "contents is not specified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Text: "unused"}))
			status, _, body := do(t, srv, tt.c)
			assert.Equal(t, tt.status, status, body)
			assert.Contains(t, at(t, obj(t, body), "error", "message"), tt.message)
			assert.Equal(t, 1, srv.Pending())
		})
	}
}

func TestBrokenScript(t *testing.T) {
	tests := []struct {
		reply   emulator.Reply
		message string
	}{
		{emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "f", Input: []byte(`{"a":`)}}}, "tool_calls[0] (f): input is not valid JSON"},
		{emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "f", Input: []byte(`[1]`)}}}, "tool_calls[0] (f): input is not a JSON object"},
		{emulator.Reply{ToolCalls: []emulator.ToolCall{{Input: []byte(`{}`)}}}, "tool_calls[0]: empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(tt.reply))
			status, _, body := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
			assert.Equal(t, 500, status)
			assert.Equal(t, "emulator: scripted reply: "+tt.message, at(t, obj(t, body), "error", "message"))
		})
	}
}

func TestRoutes(t *testing.T) {
	srv := start(t)
	status, _, body := do(t, srv, call{method: "GET", path: "/v2/nothing"})
	assert.Equal(t, 404, status)
	assert.Contains(t, body, "no route for GET /v2/nothing")

	status, h, _ := do(t, srv, call{method: "GET", path: "/v1/messages"})
	assert.Equal(t, 405, status)
	assert.Equal(t, "POST", h.Get("Allow"))

	status, h, _ = do(t, srv, call{method: "DELETE", path: "/health"})
	assert.Equal(t, 405, status)
	assert.Equal(t, "GET, HEAD", h.Get("Allow"))

	status, _, body = do(t, srv, call{path: "/v1beta/models/g:countTokens", body: `{}`})
	assert.Equal(t, 404, status)
	assert.Contains(t, body, "countTokens")

	// OpenRouter's base URL ends in /api: Chat Completions at its path.
	srv = start(t, emulator.WithReplies(emulator.Reply{Text: "Hi."}))
	c := chatCall(`{"model":"deepseek/deepseek-chat","messages":[{"role":"user","content":"hi"}]}`)
	c.path = "/api/v1/chat/completions"
	status, _, body = do(t, srv, c)
	require.Equal(t, 200, status, body)
	assert.Equal(t, "Hi.", at(t, obj(t, body), "choices", 0, "message", "content"))
}

func TestNoDateHeader(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "x"}))
	_, h, _ := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
	assert.Empty(t, h.Values("Date"), "a Date header would make cassettes differ between runs")
}

func TestLifecycle(t *testing.T) {
	srv := emulator.NewUnstartedServer()
	assert.Empty(t, srv.URL)
	require.NoError(t, srv.Start())
	assert.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	assert.Error(t, srv.Start(), "Start twice")
	srv.Close()
	srv.Close()

	_, err := client.Get(srv.URL + "/health")
	assert.Error(t, err, "closed")

	bad := emulator.NewUnstartedServer(emulator.WithAddr("256.0.0.1:0"))
	err = bad.Start()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "256.0.0.1:0")
	bad.Close()

	emulator.NewUnstartedServer().Close() // never started
}

// flushCounter is a ResponseRecorder that counts flushes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++; f.ResponseRecorder.Flush() }

func TestStreamFlushesEachEvent(t *testing.T) {
	tests := []struct {
		name string
		req  func() *http.Request
		sep  string
	}{
		{"anthropic", func() *http.Request {
			r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":1,"messages":[],"stream":true}`))
			r.Header.Set("x-api-key", testKey)
			r.Header.Set("anthropic-version", anthropicVer)
			return r
		}, "\n\n"},
		{"chat", func() *http.Request {
			r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[],"stream":true}`))
			r.Header.Set("Authorization", "Bearer "+testKey)
			return r
		}, "\n\n"},
		{"responses", func() *http.Request {
			r := httptest.NewRequest("POST", "/v1/responses", strings.NewReader(`{"model":"m","input":"x","stream":true}`))
			r.Header.Set("Authorization", "Bearer "+testKey)
			return r
		}, "\n\n"},
		{"gemini", func() *http.Request {
			r := httptest.NewRequest("POST", "/v1beta/models/g:streamGenerateContent?alt=sse", strings.NewReader(`{"contents":[]}`))
			r.Header.Set("x-goog-api-key", testGoogKey)
			return r
		}, "\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := emulator.NewUnstartedServer(emulator.WithReplies(toolTurn))
			rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
			srv.ServeHTTP(rec, tt.req())
			require.Equal(t, 200, rec.Code, rec.Body.String())
			events := splitSSE(t, rec.Body.String(), tt.sep)
			assert.Equal(t, len(events), rec.flushes, "one flush per event")
		})
	}
}

func TestReplyJSON(t *testing.T) {
	var replies []emulator.Reply
	require.NoError(t, json.Unmarshal([]byte(`[
		{"text":"hi","tool_calls":[{"id":"toolu_x","name":"f","input":{"a":1}}],
		 "usage":{"input_tokens":3,"output_tokens":2},"stop_reason":"tool_use"},
		{"error":"rate_limit","header":{"Retry-After":["2"]}}
	]`), &replies))
	assert.Equal(t, []emulator.Reply{
		{Text: "hi", ToolCalls: []emulator.ToolCall{{ID: "toolu_x", Name: "f", Input: json.RawMessage(`{"a":1}`)}},
			Usage: canonical.TokenUsage{InputTokens: 3, OutputTokens: 2}, StopReason: canonical.StopToolUse},
		{Error: emulator.ErrorRateLimit, Header: http.Header{"Retry-After": {"2"}}},
	}, replies)
}

func TestToolCallIDOverride(t *testing.T) {
	reply := emulator.Reply{ToolCalls: []emulator.ToolCall{{ID: "given_1", Name: "f"}}}
	srv := start(t, emulator.WithReplies(reply, reply))
	_, _, body := do(t, srv, anthropicCall(`{"model":"m","max_tokens":1,"messages":[]}`))
	assert.Equal(t, "given_1", at(t, obj(t, body), "content", 0, "id"))
	_, _, body = do(t, srv, responsesCall(`{"model":"m","input":"x"}`))
	assert.Equal(t, "given_1", at(t, obj(t, body), "output", 0, "call_id"))
	// ids 1-3 went to the Anthropic turn (a given id still takes its number);
	// then resp 4, rs 5, msg 6, fc 7.
	assert.Equal(t, "fc_emu_0007", at(t, obj(t, body), "output", 0, "id"), "the item id is still the emulator's")
}
