package emulator_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func TestChatStreamIncludeUsage(t *testing.T) {
	srv := start(t, emulator.WithReplies(toolTurn))
	status, h, body := do(t, srv, chatCall(`{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"add"}]}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "text/event-stream; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, "req_emu_0003", h.Get("X-Request-Id"), "OpenAI sends a request id header")

	events := splitSSE(t, body, "\n\n")
	require.Len(t, events, 16)
	assert.Equal(t, "[DONE]", events[15].data)
	d := make([]map[string]any, 15)
	obfuscations := map[string]bool{}
	for i := range d {
		assert.Empty(t, events[i].name, "chat chunks have no event line")
		d[i] = obj(t, events[i].data)
		assert.Equal(t, "chatcmpl-emu_0001", d[i]["id"])
		assert.Equal(t, "chat.completion.chunk", d[i]["object"])
		assert.Equal(t, 1767225600, num(t, d[i]["created"]))
		assert.Equal(t, "gpt-x", d[i]["model"])
		assert.Contains(t, d[i], "usage")
		o, _ := d[i]["obfuscation"].(string)
		assert.NotEmpty(t, o, "chunk %d has an obfuscation field", i)
		obfuscations[o] = true
	}
	assert.Greater(t, len(obfuscations), 5, "obfuscation padding varies in length and content")
	delta := func(i int) any { return at(t, d[i], "choices", 0, "delta") }
	finish := func(i int) any { return at(t, d[i], "choices", 0, "finish_reason") }

	assert.Equal(t, map[string]any{"role": "assistant", "content": "", "refusal": nil}, delta(0))
	assert.Equal(t, map[string]any{"content": "Hello, world"}, delta(1))
	assert.Equal(t, map[string]any{"content": "!"}, delta(2))
	assert.Equal(t, map[string]any{"tool_calls": []any{map[string]any{
		"index": json.Number("0"), "id": "call_emu_0002", "type": "function",
		"function": map[string]any{"name": "add", "arguments": ""},
	}}}, delta(3))
	assert.Equal(t, map[string]any{"tool_calls": []any{map[string]any{
		"index": json.Number("0"), "function": map[string]any{"arguments": `{"`},
	}}}, delta(4), "id, type and name only on the index's first delta")
	var args []string
	for i := 4; i < 13; i++ {
		args = append(args, at(t, delta(i), "tool_calls", 0, "function", "arguments").(string))
	}
	assert.Equal(t, []string{`{"`, `a`, `":`, `2`, `,"`, `b`, `":`, `3`, `}`}, args, "compact JSON in token-like pieces")
	for i := range 13 {
		assert.Nil(t, finish(i))
		assert.Nil(t, d[i]["usage"])
	}
	assert.Equal(t, map[string]any{}, delta(13), "finish_reason comes in a chunk of its own")
	assert.Equal(t, "tool_calls", finish(13))

	assert.Equal(t, []any{}, d[14]["choices"])
	assert.Equal(t, 10, num(t, at(t, d[14], "usage", "prompt_tokens")))
	assert.Equal(t, 20, num(t, at(t, d[14], "usage", "completion_tokens")))
	assert.Equal(t, 30, num(t, at(t, d[14], "usage", "total_tokens")))
	assert.Equal(t, 5, num(t, at(t, d[14], "usage", "completion_tokens_details", "reasoning_tokens")))
}

func TestChatStreamWithoutUsageAndToolsOnly(t *testing.T) {
	reply := emulator.Reply{ToolCalls: []emulator.ToolCall{
		{Name: "get_country"},
		{ID: "call_custom", Name: "get_product", Input: json.RawMessage(`{}`)},
	}}
	srv := start(t, emulator.WithReplies(reply))
	_, _, body := do(t, srv, chatCall(`{"model":"gpt-x","stream":true,"messages":[]}`))
	events := splitSSE(t, body, "\n\n")
	require.Len(t, events, 6)
	var deltas []any
	for _, ev := range events[:5] {
		m := obj(t, ev.data)
		assert.NotContains(t, m, "usage", "no usage key without stream_options.include_usage")
		deltas = append(deltas, at(t, m, "choices", 0, "delta"))
	}
	assert.Equal(t, map[string]any{"role": "assistant", "content": nil, "refusal": nil, "tool_calls": []any{map[string]any{
		"index": json.Number("0"), "id": "call_emu_0002", "type": "function",
		"function": map[string]any{"name": "get_country", "arguments": ""},
	}}}, deltas[0], "the role and the first call's id and name share a chunk, as OpenAI sends them now")
	assert.Equal(t, "{}", at(t, deltas[1], "tool_calls", 0, "function", "arguments"))
	assert.Equal(t, json.Number("1"), at(t, deltas[2], "tool_calls", 0, "index"))
	assert.Equal(t, "call_custom", at(t, deltas[2], "tool_calls", 0, "id"))
	assert.Equal(t, "get_product", at(t, deltas[2], "tool_calls", 0, "function", "name"))
	assert.Equal(t, map[string]any{}, deltas[4])
	assert.Equal(t, "[DONE]", events[5].data)
}

func TestChatNonStream(t *testing.T) {
	srv := start(t, emulator.WithReplies(toolTurn))
	status, h, body := do(t, srv, chatCall(`{"model":"gpt-x","messages":[{"role":"user","content":"add"}]}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.JSONEq(t, `{
		"id":"chatcmpl-emu_0001","object":"chat.completion","created":1767225600,"model":"gpt-x",
		"choices":[{"index":0,"message":{"role":"assistant","content":"Hello, world!","refusal":null,"annotations":[],
			"tool_calls":[{"id":"call_emu_0002","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":3}"}}]},
			"logprobs":null,"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30,
			"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
			"completion_tokens_details":{"reasoning_tokens":5,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
		"service_tier":"default","system_fingerprint":"fp_emulator"
	}`, body)
}

func TestChatFinishReasonsAndCachedUsage(t *testing.T) {
	tests := []struct {
		stop canonical.StopReason
		want string
	}{
		{canonical.StopEndTurn, "stop"},
		{canonical.StopStopSequence, "stop"},
		{canonical.StopMaxTokens, "length"},
		{canonical.StopContentFilter, "content_filter"},
	}
	for _, tt := range tests {
		t.Run(string(tt.stop), func(t *testing.T) {
			reply := emulator.Reply{Text: "x", StopReason: tt.stop, Usage: canonical.TokenUsage{InputTokens: 4, CachedInputTokens: 6, OutputTokens: 1}}
			srv := start(t, emulator.WithReplies(reply))
			_, _, body := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
			m := obj(t, body)
			assert.Equal(t, tt.want, at(t, m, "choices", 0, "finish_reason"))
			assert.NotContains(t, at(t, m, "choices", 0, "message"), "tool_calls")
			assert.Equal(t, 10, num(t, at(t, m, "usage", "prompt_tokens")), "prompt tokens include cached ones")
			assert.Equal(t, 6, num(t, at(t, m, "usage", "prompt_tokens_details", "cached_tokens")))
		})
	}
}

func TestChatReasoningField(t *testing.T) {
	srv := start(t, emulator.WithChatReasoningField("reasoning_content"), emulator.WithChunkSize(100),
		emulator.WithReplies(emulator.Reply{Thinking: "think", Text: "answer"}, emulator.Reply{Thinking: "think", Text: "answer"}))
	_, _, body := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
	assert.Equal(t, "think", at(t, obj(t, body), "choices", 0, "message", "reasoning_content"))

	_, _, body = do(t, srv, chatCall(`{"model":"m","messages":[],"stream":true}`))
	events := splitSSE(t, body, "\n\n")
	require.Len(t, events, 5)
	assert.Equal(t, map[string]any{"reasoning_content": "think"}, at(t, obj(t, events[1].data), "choices", 0, "delta"))
	assert.Equal(t, map[string]any{"content": "answer"}, at(t, obj(t, events[2].data), "choices", 0, "delta"))
}
