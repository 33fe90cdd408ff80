package openai

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// This file tests the ChatDialect knobs that OpenAI-compatible servers
// need: APIPrefix, UnknownFinishReason, ExtraContent and the order of
// ReasoningFields.

func TestChatURL(t *testing.T) {
	tests := []struct {
		base, prefix, want string
	}{
		{"https://api.openai.com", "", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/", "", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1", "", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1/", "", "https://api.openai.com/v1/chat/completions"},
		{"https://generativelanguage.googleapis.com", "/v1beta/openai", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"},
		{"https://generativelanguage.googleapis.com/v1beta/openai", "/v1beta/openai", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"},
		{"https://generativelanguage.googleapis.com/v1beta/openai/", "/", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"},
		{"http://localhost:8080/v1", "/", "http://localhost:8080/v1/chat/completions"},
		{"http://localhost:8080", "/api/v1/", "http://localhost:8080/api/v1/chat/completions"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, ChatDialect{APIPrefix: tc.prefix}.URL(tc.base), "%s + %q", tc.base, tc.prefix)
	}

	cfg := &adapters.Config{BaseURL: "https://generativelanguage.googleapis.com", APIKey: "sk-test-FAKE"}
	req := &canonical.Request{Model: "gemini:gemini-2.5-flash", Stream: true, Messages: []canonical.Message{msg("u", canonical.RoleUser, text("hi"))}}
	w, err := ChatDialect{Provider: "openai", APIPrefix: "/v1beta/openai"}.Encode(buildCall(req, cfg, nil), cfg.BaseURL)
	require.NoError(t, err)
	assert.Equal(t, "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", w.URL)
	assert.Equal(t, "text/event-stream", w.Header.Get("Accept"))
	h := w.Header.Clone()
	Authorize(h, cfg.APIKey)
	assert.Equal(t, "Bearer sk-test-FAKE", h.Get("Authorization"))
}

// TestChatUnknownFinishReason: with UnknownFinishReason the message
// finishes with it, the reason verbatim, one WARN, and the usage chunk
// after the finish chunk still counts.
func TestChatUnknownFinishReason(t *testing.T) {
	const usage = `{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2}}`
	stream := sse(chatHello,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"eos_token_limit"}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"eos_token_limit"}]}`, // repeated: one WARN
		usage, "[DONE]")
	body := []byte(`{"choices":[{"index":0,"message":{"content":"Hello"},"finish_reason":"eos_token_limit"}],"usage":{"prompt_tokens":10,"completion_tokens":2}}`)
	for _, streamed := range []bool{true, false} {
		rec := &logRecorder{}
		d := ChatDialect{Provider: "vllm", UnknownFinishReason: canonical.StopError, Logger: slog.New(rec)}
		var r decodeResult
		if streamed {
			r = runDecoder(d.DecodeStream, stream, nil)
			assert.Empty(t, streamFindings(r))
			assert.Len(t, adaptertest.EventsOf(r.events, canonical.EventUsageUpdate), 1, "the usage chunk after the finish reason is read")
		} else {
			r = runBody(d.DecodeBody, body, nil)
		}
		require.NoError(t, r.err, "streamed=%v", streamed)
		require.NotNil(t, r.resp)
		assert.Equal(t, canonical.StopError, r.resp.StopReason)
		assert.Equal(t, "eos_token_limit", r.resp.ProviderStopReason)
		assert.Equal(t, "Hello", r.resp.Content.Text())
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 10, OutputTokens: 2}, r.resp.Usage); diff != "" {
			t.Errorf("r.resp.Usage mismatch (-want +got):\n%s", diff)
		}
		w := rec.warnings()
		require.Len(t, w, 1)
		assert.Equal(t, UnknownFinishReasonMsg, w[0]["msg"])
		assert.Equal(t, "vllm", w[0]["adapter"])
		assert.Equal(t, "req_test", w[0]["request_id"])
		assert.Equal(t, "eos_token_limit", w[0]["finish_reason"])
		assert.Equal(t, "error", w[0]["stop_reason"])
	}

	// Known extra reasons are mapped without a WARN.
	rec := &logRecorder{}
	d := ChatDialect{Provider: "vllm", UnknownFinishReason: canonical.StopError, Logger: slog.New(rec),
		FinishReasons: map[string]canonical.StopReason{"eos": canonical.StopEndTurn}}
	r := runDecoder(d.DecodeStream, sse(chatHello, `{"choices":[{"index":0,"delta":{},"finish_reason":"eos"}]}`, "[DONE]"), nil)
	require.NoError(t, r.err)
	assert.Equal(t, canonical.StopEndTurn, r.resp.StopReason)
	assert.Empty(t, rec.warnings())
}

// Gemini's OpenAI-compatible endpoint, in the shape its documentation
// gives: each tool call whole in one chunk, without an index, its thought
// signature in extra_content.
var (
	geminiExtraStream = sse(
		`{"choices":[{"delta":{"role":"assistant","extra_content":{"google":{"thought":true}},"tool_calls":[`+
			`{"extra_content":{"google":{"thought_signature":"sig-A"}},"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"function-call-1","type":"function"},`+
			`{"function":{"arguments":"{\"city\":\"Rome\"}","name":"get_weather"},"id":"function-call-2","type":"function"}]},"index":0}],"model":"gemini-2.5-flash","object":"chat.completion.chunk"}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls","index":0}],"model":"gemini-2.5-flash","object":"chat.completion.chunk","usage":{"completion_tokens":12,"prompt_tokens":35,"total_tokens":47}}`,
		"[DONE]")
	geminiExtraBody = []byte(`{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","extra_content":{"google":{"thought":true}},"tool_calls":[` +
		`{"extra_content":{"google":{"thought_signature":"sig-A"}},"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"function-call-1","type":"function"},` +
		`{"extra_content":null,"function":{"arguments":"{\"city\":\"Rome\"}","name":"get_weather"},"id":"function-call-2","type":"function"}]}}],` +
		`"model":"gemini-2.5-flash","object":"chat.completion","usage":{"completion_tokens":12,"prompt_tokens":35,"total_tokens":47}}`)
)

// TestChatExtraContentDecoded: streamed and not, extra_content of the
// message and of each tool call lands in ProviderRaw under the canonical
// tool ids; without the knob nothing is kept.
func TestChatExtraContentDecoded(t *testing.T) {
	for _, streamed := range []bool{true, false} {
		for _, on := range []bool{true, false} {
			ids := adapters.NewToolIDMap()
			d := ChatDialect{Provider: "gemini-compat", ExtraContent: on}
			var r decodeResult
			if streamed {
				r = runDecoder(d.DecodeStream, geminiExtraStream, ids)
				assert.Empty(t, streamFindings(r))
			} else {
				r = runBody(d.DecodeBody, geminiExtraBody, ids)
			}
			require.NoError(t, r.err)
			require.NotNil(t, r.resp)
			assert.Equal(t, canonical.StopToolUse, r.resp.StopReason)
			uses := r.resp.Content.ToolUses()
			require.Len(t, uses, 2)
			if !on {
				assert.Nil(t, r.resp.ProviderRaw, "streamed=%v: extra_content is ignored without the knob", streamed)
				continue
			}
			if streamed {
				// The events carry it too: message.complete's response.
				done := adaptertest.EventsOf(r.events, canonical.EventMessageComplete)
				require.Len(t, done, 1)
				assert.JSONEq(t, string(r.resp.ProviderRaw), string(done[0].Response.ProviderRaw))
			}
			want := `{"extra_content":{"google":{"thought":true}},"tool_calls":{"` + uses[0].ID + `":{"extra_content":{"google":{"thought_signature":"sig-A"}}}}}`
			assert.JSONEq(t, want, string(r.resp.ProviderRaw), "streamed=%v", streamed)
			assert.Equal(t, uses[0].ID, ids.Canonical("openai", "function-call-1"), "keyed by the canonical id of the call (runDecoder maps under openai)")
		}
	}
}

// TestChatExtraContentReplayed: BuildRequest sends extra_content back on
// the same message and tool call, only to the provider that gave it and
// only with the knob.
func TestChatExtraContentReplayed(t *testing.T) {
	const (
		tuA = "tu_01J0000000000000000000000A"
		tuB = "tu_01J0000000000000000000000B"
	)
	raw := json.RawMessage(`{"extra_content":{"google":{"thought":true}},"tool_calls":{"` + tuA + `":{"extra_content":{"google":{"thought_signature":"sig-A"}},"raw_arguments":"{\"ci"}}}`)
	request := func(provider string, raw json.RawMessage) *canonical.Request {
		ids := adapters.NewToolIDMap()
		ids.Bind(tuA, "gemini-compat", "function-call-1")
		ids.Bind(tuB, "gemini-compat", "function-call-2")
		asst := msg("a1", canonical.RoleAssistant,
			canonical.ToolUseBlock{ID: tuA, Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)},
			canonical.ToolUseBlock{ID: tuB, Name: "get_weather", Input: json.RawMessage(`{"city":"Rome"}`)})
		asst.Metadata.Provider = provider
		asst.Metadata.ProviderRaw = map[string]json.RawMessage{provider: raw}
		return &canonical.Request{Model: "gemini-compat:gemini-2.5-flash", ToolIDs: ids, Messages: []canonical.Message{
			msg("u1", canonical.RoleUser, text("Weather in Paris and Rome?")),
			asst,
			msg("t1", canonical.RoleTool,
				canonical.ToolResultBlock{ToolUseID: tuA, Content: canonical.Blocks{text("21°C")}},
				canonical.ToolResultBlock{ToolUseID: tuB, Content: canonical.Blocks{text("25°C")}}),
		}}
	}
	cfg := &adapters.Config{Name: "gemini-compat"}
	withExtras := `{"role":"assistant","content":null,"extra_content":{"google":{"thought":true}},"tool_calls":[
		{"id":"function-call-1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"sig-A"}}},
		{"id":"function-call-2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]}`
	without := `{"role":"assistant","content":null,"tool_calls":[
		{"id":"function-call-1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"function-call-2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]}`
	tests := []struct {
		name     string
		on       bool
		provider string
		raw      json.RawMessage
		want     string
		warns    int
	}{
		{"same provider", true, "gemini-compat", raw, withExtras, 0},
		{"another provider", true, "gemini", raw, without, 0},
		{"knob off", false, "gemini-compat", raw, without, 0},
		{"unreadable entry", true, "gemini-compat", json.RawMessage(`{"tool_calls":[]}`), without, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &logRecorder{}
			d := ChatDialect{Provider: "gemini-compat", ExtraContent: tc.on}
			body, err := d.BuildRequest(buildCall(request(tc.provider, tc.raw), cfg, slog.New(rec)))
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(mustJSON(t, jsonPath(t, decodeJSON(t, body), "messages", 1))))
			w := rec.warnings()
			require.Len(t, w, tc.warns)
			if tc.warns > 0 {
				assert.Equal(t, "a1", w[0]["message_id"])
				assert.Equal(t, "gemini-compat", w[0]["adapter"])
			}
		})
	}
}

// TestChatReasoningFieldOrder: of the reasoning fields one delta carries,
// only the first configured is read.
func TestChatReasoningFieldOrder(t *testing.T) {
	both := `{"choices":[{"index":0,"delta":{"reasoning_content":"Think.","reasoning":"Think."}}]}`
	tests := []struct {
		name   string
		fields []string
		body   []byte
		want   string
	}{
		{"both fields with the same text are read once", []string{"reasoning_content", "reasoning"}, sse(both, both, chatHello, chatStop), "Think.Think."},
		{"the first configured wins", []string{"reasoning", "reasoning_content"},
			sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"A","reasoning":"B"}}]}`, chatHello, chatStop), "B"},
		{"an empty or null first field defers to the next", []string{"reasoning_content", "reasoning"},
			sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"B"}}]}`, `{"choices":[{"index":0,"delta":{"reasoning_content":null,"reasoning":"C"}}]}`, chatHello, chatStop), "BC"},
		{"a field not configured is never read", []string{"reasoning"},
			sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"A"}}]}`, chatHello, chatStop), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := ChatDialect{Provider: "vllm", ReasoningFields: tc.fields}
			r := runDecoder(d.DecodeStream, tc.body, nil)
			require.NoError(t, r.err)
			require.NotNil(t, r.resp)
			want := `[{"type":"thinking","text":"` + tc.want + `"},{"type":"text","text":"Hello"}]`
			if tc.want == "" {
				want = `[{"type":"text","text":"Hello"}]`
			}
			assertContent(t, want, r.resp.Content)
			var deltas string
			for _, ev := range adaptertest.EventsOf(r.events, canonical.EventThinkingDelta) {
				deltas += ev.Text
			}
			assert.Equal(t, tc.want, deltas, "each text is emitted once")
		})
	}

	// The same in a whole body.
	d := ChatDialect{Provider: "vllm", ReasoningFields: []string{"reasoning_content", "reasoning"}}
	r := runBody(d.DecodeBody, []byte(`{"choices":[{"index":0,"message":{"reasoning_content":"Why.","reasoning":"Why.","content":"Hi"},"finish_reason":"stop"}]}`), nil)
	require.NoError(t, r.err)
	assertContent(t, `[{"type":"thinking","text":"Why."},{"type":"text","text":"Hi"}]`, r.resp.Content)
}
