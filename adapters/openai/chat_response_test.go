package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// sse frames each payload as a data-only SSE event.
func sse(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return []byte(b.String())
}

const (
	chatRole   = `{"choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}`
	chatHello  = `{"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}`
	chatStop   = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	chatUsage1 = `{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2}}`
)

func TestChatStreamEdgeCases(t *testing.T) {
	tests := []struct {
		name      string
		d         ChatDialect
		body      []byte
		finished  bool
		stop      canonical.StopReason
		content   string // JSON of the content blocks, compared loosely
		usage     canonical.TokenUsage
		errCode   string
		errClass  canonical.ErrorClass
		errSubstr string
	}{
		{name: "DONE after usage", body: sse(chatRole, chatHello, chatStop, chatUsage1, "[DONE]"), finished: true,
			stop: canonical.StopEndTurn, content: `[{"type":"text","text":"Hello"}]`, usage: canonical.TokenUsage{InputTokens: 10, OutputTokens: 2}},
		{name: "missing DONE is tolerated after a finish_reason", body: sse(chatRole, chatHello, chatStop, chatUsage1), finished: true,
			stop: canonical.StopEndTurn, content: `[{"type":"text","text":"Hello"}]`, usage: canonical.TokenUsage{InputTokens: 10, OutputTokens: 2}},
		{name: "usage in the finish chunk", body: sse(chatHello, `{"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":4,"completion_tokens":1}}`, "[DONE]"),
			finished: true, stop: canonical.StopMaxTokens, content: `[{"type":"text","text":"Hello"}]`, usage: canonical.TokenUsage{InputTokens: 4, OutputTokens: 1}},
		{name: "EOF before finish_reason is truncated", body: sse(chatRole, chatHello)},
		{name: "DONE before finish_reason is truncated", body: sse(chatRole, chatHello, "[DONE]")},
		{name: "Azure prompt_filter_results chunk is skipped",
			body: sse(`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`,
				chatHello, chatStop, "[DONE]"),
			finished: true, stop: canonical.StopEndTurn, content: `[{"type":"text","text":"Hello"}]`},
		{name: "tool indexes may start at 1; stop with tool calls is tool_use",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}}]}}]}`,
				chatStop, "[DONE]"),
			finished: true, stop: canonical.StopToolUse, content: `[{"type":"tool_use","name":"f","input":{"a":1}}]`},
		{name: "arguments as an object (compatible servers)",
			body:     sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":{"x":[1,2]}}}]},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			finished: true, stop: canonical.StopToolUse, content: `[{"type":"tool_use","name":"f","input":{"x":[1,2]}}]`},
		{name: "refusal is text with stop content_filter",
			body:     sse(`{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."}}]}`, chatStop, "[DONE]"),
			finished: true, stop: canonical.StopContentFilter, content: `[{"type":"text","text":"I can't help with that."}]`},
		{name: "content_filter", body: sse(chatHello, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`, "[DONE]"),
			finished: true, stop: canonical.StopContentFilter, content: `[{"type":"text","text":"Hello"}]`},
		{name: "reasoning fields become thinking when configured",
			d: ChatDialect{ReasoningFields: []string{"reasoning_content", "reasoning"}},
			body: sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"Let me "}}]}`, `{"choices":[{"index":0,"delta":{"reasoning":"think."}}]}`,
				chatHello, chatStop, "[DONE]"),
			finished: true, stop: canonical.StopEndTurn, content: `[{"type":"thinking","text":"Let me think."},{"type":"text","text":"Hello"}]`},
		{name: "reasoning fields are ignored unless configured",
			body:     sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"hidden","reasoning":{"summary":"obj"}}}]}`, chatHello, chatStop, "[DONE]"),
			finished: true, stop: canonical.StopEndTurn, content: `[{"type":"text","text":"Hello"}]`},
		{name: "extra finish reasons", d: ChatDialect{FinishReasons: map[string]canonical.StopReason{"eos": canonical.StopEndTurn}},
			body: sse(chatHello, `{"choices":[{"index":0,"delta":{},"finish_reason":"eos"}]}`), finished: true, stop: canonical.StopEndTurn,
			content: `[{"type":"text","text":"Hello"}]`},
		{name: "other choices are ignored", body: sse(`{"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]}`, chatStop, "[DONE]"),
			finished: true, stop: canonical.StopEndTurn, content: `[{"type":"text","text":"A"}]`},
		{name: "unknown finish_reason", body: sse(chatHello, `{"choices":[{"index":0,"delta":{},"finish_reason":"eos"}]}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeUnknownFinishReason, errSubstr: `"eos"`},
		{name: "mid-stream error chunk", body: sse(chatRole, chatHello, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","code":null}}`),
			errClass: canonical.ErrServer, errSubstr: "The server had an error"},
		{name: "mid-stream error with a numeric code (OpenRouter)", body: sse(chatHello, `{"id":"x","error":{"code":429,"message":"Rate limit exceeded: free-models-per-min."},"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`),
			errClass: canonical.ErrRateLimit, errSubstr: "Rate limit exceeded"},
		{name: "mid-stream rate limit error", body: sse(`{"error":{"message":"Rate limit reached. Please try again in 20ms.","type":"requests","code":"rate_limit_exceeded"}}`),
			errClass: canonical.ErrRateLimit, errSubstr: "Rate limit reached"},
		{name: "malformed JSON names the event", body: sse(chatRole, `{"choices":[`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "chat stream event 2: malformed JSON"},
		{name: "arguments for a call that ended",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"{"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}}]}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "after it ended"},
		{name: "a call without a function name",
			body:     sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"arguments":"{}"}}]}}]}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "without a function name"},
		{name: "negative tool index", body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"id":"a","function":{"name":"f"}}]}}]}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.d.Provider = "openai"
			r := runDecoder(tc.d.DecodeStream, tc.body, nil)
			if r.resp != nil {
				assert.Empty(t, streamFindings(r))
			}
			if tc.errClass != "" {
				var ae *canonical.AdapterError
				require.ErrorAs(t, r.err, &ae)
				assert.Equal(t, tc.errClass, ae.Class)
				assert.Equal(t, tc.errCode, ae.Code)
				assert.Contains(t, ae.Error(), tc.errSubstr)
				assert.Equal(t, "openai", ae.Provider)
				assert.Nil(t, r.resp)
				return
			}
			require.NoError(t, r.err)
			if !tc.finished {
				assert.Nil(t, r.resp, "a truncated stream must not finish")
				return
			}
			require.NotNil(t, r.resp)
			assert.Equal(t, tc.stop, r.resp.StopReason)
			if diff := cmp.Diff(tc.usage, r.resp.Usage); diff != "" {
				t.Errorf("r.resp.Usage mismatch (-want +got):\n%s", diff)
			}
			assertContent(t, tc.content, r.resp.Content)
		})
	}
}

// assertContent compares blocks with a JSON description, ignoring tool ids.
func assertContent(t *testing.T, want string, got canonical.Blocks) {
	t.Helper()
	var blocks []map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(t, got), &blocks))
	for _, b := range blocks {
		if b["type"] == "tool_use" {
			assert.True(t, canonical.IsToolUseID(b["id"].(string)))
			delete(b, "id")
		}
		if b["type"] == "thinking" && b["signature"] == nil {
			delete(b, "signature")
		}
	}
	assert.JSONEq(t, want, string(mustJSON(t, blocks)))
}

func TestChatBodyEdgeCases(t *testing.T) {
	d := ChatDialect{Provider: "openai", ReasoningFields: []string{"reasoning_content"}}
	r := runBody(d.DecodeBody, []byte(`{"choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"why","content":"Hi","tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
		{"id":"call_2","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":9,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}}`), nil)
	require.NoError(t, r.err)
	assert.Equal(t, canonical.StopToolUse, r.resp.StopReason)
	assertContent(t, `[{"type":"thinking","text":"why"},{"type":"text","text":"Hi"},
		{"type":"tool_use","name":"f","input":{"a":1}},{"type":"tool_use","name":"g","input":{}}]`, r.resp.Content)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 5, CachedInputTokens: 4, OutputTokens: 3}, r.resp.Usage); diff != "" {
		t.Errorf("r.resp.Usage mismatch (-want +got):\n%s", diff)
	}

	// No finish_reason in a whole body: complete, end_turn.
	r = runBody(d.DecodeBody, []byte(`{"choices":[{"message":{"content":"x"}}]}`), nil)
	require.NoError(t, r.err)
	assert.Equal(t, canonical.StopEndTurn, r.resp.StopReason)

	for body, want := range map[string]string{
		`{"choices":[]}`:                               "no choices",
		`{"choices":[{"delta":{}}]}`:                   "has no message",
		`{"choices":[{"finish_reason":"stop"}]}`:       "has no message, yet finish_reason \"stop\"",
		`{"choices":[{"finish_reason":"tool_calls"}]}`: "claims a whole answer",
		`{"choices":`:                                  "malformed JSON",
		`{"error":{"message":"boom"}}`:                 "boom",
		`{"error":"model not loaded"}`:                 "model not loaded",
		`{"choices":[{"message":{"content":"x"},"finish_reason":"weird"}]}`: `unknown finish_reason "weird"`,
	} {
		r := runBody(d.DecodeBody, []byte(body), nil)
		require.Error(t, r.err, body)
		assert.Contains(t, r.err.Error(), want, body)
		var ae *canonical.AdapterError
		assert.ErrorAs(t, r.err, &ae)
	}
}

// TestChatStreamEqualsBody is 000 §10.1 check 14 for Chat Completions: a
// stream with include_usage and the equivalent body (hand-written in
// testdata) give the same canonical response, including usage with every
// token field populated (check 13).
func TestChatStreamEqualsBody(t *testing.T) {
	d := ChatDialect{Provider: "openai"}
	ids := adapters.NewToolIDMap()
	s := runDecoder(d.DecodeStream, readTestdata(t, "chat_stream_usage.txt"), ids)
	b := runBody(d.DecodeBody, readTestdata(t, "chat_body_usage.json"), ids)
	require.NoError(t, s.err)
	require.NoError(t, b.err)
	want := canonical.TokenUsage{InputTokens: 200, CachedInputTokens: 1000, OutputTokens: 300, ReasoningTokens: 200}
	if diff := cmp.Diff(want, s.resp.Usage); diff != "" {
		t.Errorf("s.resp.Usage mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, b.resp.Usage); diff != "" {
		t.Errorf("b.resp.Usage mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(s.resp.Content, b.resp.Content); diff != "" {
		t.Errorf("b.resp.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, s.resp.StopReason, b.resp.StopReason)
	assert.Equal(t, canonical.StopToolUse, s.resp.StopReason)
	usage := adaptertest.EventsOf(s.events, canonical.EventUsageUpdate)
	require.Len(t, usage, 1)
	if diff := cmp.Diff(want, *usage[0].Usage); diff != "" {
		t.Errorf("*usage[0].Usage mismatch (-want +got):\n%s", diff)
	}
	assertContent(t, `[{"type":"text","text":"Hello world"},{"type":"tool_use","name":"f","input":{"a":1}}]`, s.resp.Content)
}
