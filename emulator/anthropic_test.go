package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// toolTurn is the reply most tests script: reasoning, text and one call.
// With the default chunk size of 12 bytes, Thinking, Text and the
// arguments each stream as two deltas.
var toolTurn = emulator.Reply{
	Thinking:  "Let me add them.",
	Text:      "Hello, world!",
	ToolCalls: []emulator.ToolCall{{Name: "add", Input: json.RawMessage(`{"a": 2, "b": 3}`)}},
	Usage:     canonical.TokenUsage{InputTokens: 10, OutputTokens: 20, ReasoningTokens: 5},
}

func sig(n string) string {
	return base64.StdEncoding.EncodeToString([]byte("emulator-signature-" + n))
}

func TestAnthropicStream(t *testing.T) {
	srv := start(t, emulator.WithReplies(toolTurn))
	status, h, body := do(t, srv, anthropicCall(`{"model":"claude-x","max_tokens":100,"stream":true,
		"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"add 2 and 3"}]}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "text/event-stream; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, "req_emu_0002", h.Get("Request-Id"))

	events := splitSSE(t, body, "\n\n")
	var names []string
	padded := 0
	for _, ev := range events {
		names = append(names, ev.name)
		assert.False(t, strings.HasSuffix(ev.data, " "), "padding goes inside the JSON, never after it: %q", ev.data)
		if strings.HasSuffix(ev.data, " }") {
			padded++
		}
	}
	deltas := func(n int) []string { return slices.Repeat([]string{"content_block_delta"}, n) }
	want := []string{"message_start", "content_block_start", "ping"}
	want = append(want, deltas(4)...)
	want = append(want, "content_block_stop", "content_block_start")
	want = append(want, deltas(2)...)
	want = append(want, "content_block_stop", "content_block_start")
	want = append(want, deltas(10)...)
	want = append(want, "content_block_stop", "message_delta", "message_stop")
	assert.Equal(t, want, names)
	assert.Greater(t, padded, len(events)/2, "most data lines are padded with spaces before the closing brace")
	assert.Equal(t, `{"type": "ping"}`, events[2].data)

	d := make([]map[string]any, len(events))
	for i, ev := range events {
		d[i] = obj(t, ev.data)
		assert.Equal(t, ev.name, d[i]["type"], "event %d: the event line names the data's type", i)
	}
	start := d[0]
	assert.Equal(t, "msg_emu_0001", at(t, start, "message", "id"))
	assert.Equal(t, "claude-x", at(t, start, "message", "model"))
	assert.Nil(t, at(t, start, "message", "stop_reason"))
	assert.Equal(t, 10, num(t, at(t, start, "message", "usage", "input_tokens")))
	assert.Equal(t, 1, num(t, at(t, start, "message", "usage", "output_tokens")), "message_start usage is provisional")

	// thinking: deltas, then an empty thinking_delta, then the signature
	assert.Equal(t, map[string]any{"type": "thinking", "thinking": "", "signature": ""}, d[1]["content_block"])
	assert.Equal(t, map[string]any{"type": "thinking_delta", "thinking": "Let me add t"}, d[3]["delta"])
	assert.Equal(t, map[string]any{"type": "thinking_delta", "thinking": "hem."}, d[4]["delta"])
	assert.Equal(t, map[string]any{"type": "thinking_delta", "thinking": ""}, d[5]["delta"])
	assert.Equal(t, map[string]any{"type": "signature_delta", "signature": sig("0001")}, d[6]["delta"])

	// text
	assert.Equal(t, 1, num(t, d[8]["index"]))
	assert.Equal(t, map[string]any{"type": "text", "text": ""}, d[8]["content_block"])
	assert.Equal(t, "Hello, world", at(t, d[9], "delta", "text"))
	assert.Equal(t, "!", at(t, d[10], "delta", "text"))

	// tool_use: empty input at start, then "" and the fragments
	assert.Equal(t, 2, num(t, d[12]["index"]))
	assert.Equal(t, "tool_use", at(t, d[12], "content_block", "type"))
	assert.Equal(t, "toolu_emu_0003", at(t, d[12], "content_block", "id"))
	assert.Equal(t, "add", at(t, d[12], "content_block", "name"))
	assert.Equal(t, map[string]any{}, at(t, d[12], "content_block", "input"))
	assert.Equal(t, map[string]any{"type": "input_json_delta", "partial_json": ""}, d[13]["delta"])
	var pieces []string
	for _, e := range d[14:23] {
		pieces = append(pieces, at(t, e, "delta", "partial_json").(string))
	}
	assert.Equal(t, []string{`{"`, `a`, `": `, `2`, `, "`, `b`, `": `, `3`, `}`}, pieces,
		"spaced JSON in uneven, token-like pieces, as the API sends it")

	// message_delta supersedes the provisional usage
	md := d[len(d)-2]
	assert.Equal(t, "tool_use", at(t, md, "delta", "stop_reason"))
	assert.Nil(t, at(t, md, "delta", "stop_sequence"))
	assert.Contains(t, at(t, md, "delta"), "stop_details")
	assert.Nil(t, at(t, md, "delta", "stop_details"))
	assert.Nil(t, at(t, start, "message", "stop_details"))
	assert.Equal(t, 20, num(t, at(t, md, "usage", "output_tokens")))
	assert.Equal(t, 10, num(t, at(t, md, "usage", "input_tokens")))
}

func TestAnthropicNonStream(t *testing.T) {
	srv := start(t, emulator.WithReplies(toolTurn, toolTurn))
	status, h, body := do(t, srv, anthropicCall(`{"model":"claude-x","max_tokens":100,
		"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"add"}]}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.JSONEq(t, `{
		"model":"claude-x","id":"msg_emu_0001","type":"message","role":"assistant",
		"content":[
			{"type":"thinking","thinking":"Let me add them.","signature":"`+sig("0001")+`"},
			{"type":"text","text":"Hello, world!"},
			{"type":"tool_use","id":"toolu_emu_0003","name":"add","input":{"a":2,"b":3}}
		],
		"stop_reason":"tool_use","stop_sequence":null,"stop_details":null,
		"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,
			"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},
			"output_tokens":20,"service_tier":"standard","inference_geo":"not_available"}
	}`, body)

	// Without "thinking" in the request the API shows no thinking block.
	_, _, body = do(t, srv, anthropicCall(`{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"add"}]}`))
	m := obj(t, body)
	assert.Equal(t, "msg_emu_0004", m["id"])
	assert.Len(t, m["content"], 2)
	assert.Equal(t, "text", at(t, m, "content", 0, "type"))
}

func TestAnthropicStopReasonsAndCacheUsage(t *testing.T) {
	tests := []struct {
		reply        emulator.Reply
		stopReason   string
		stopSequence any
	}{
		{emulator.Reply{Text: "a"}, "end_turn", nil},
		{emulator.Reply{Text: "a", StopReason: canonical.StopMaxTokens}, "max_tokens", nil},
		{emulator.Reply{Text: "a", StopReason: canonical.StopStopSequence, StopSequence: "END"}, "stop_sequence", "END"},
		{emulator.Reply{Text: "a", StopReason: canonical.StopContentFilter}, "refusal", nil},
		{emulator.Reply{Text: "a", StopReason: "pause_turn"}, "pause_turn", nil},
	}
	for _, tt := range tests {
		t.Run(tt.stopReason, func(t *testing.T) {
			tt.reply.Usage = canonical.TokenUsage{InputTokens: 3, CachedInputTokens: 100, CacheCreationInputTokens: 7, OutputTokens: 2}
			srv := start(t, emulator.WithReplies(tt.reply, tt.reply))
			_, _, body := do(t, srv, anthropicCall(`{"model":"m","max_tokens":9,"messages":[]}`))
			m := obj(t, body)
			assert.Equal(t, tt.stopReason, m["stop_reason"])
			assert.Equal(t, tt.stopSequence, m["stop_sequence"])
			assert.Equal(t, 3, num(t, at(t, m, "usage", "input_tokens")))
			assert.Equal(t, 100, num(t, at(t, m, "usage", "cache_read_input_tokens")))
			assert.Equal(t, 7, num(t, at(t, m, "usage", "cache_creation_input_tokens")))

			_, _, body = do(t, srv, anthropicCall(`{"model":"m","max_tokens":9,"messages":[],"stream":true}`))
			events := splitSSE(t, body, "\n\n")
			md := obj(t, events[len(events)-2].data)
			assert.Equal(t, tt.stopReason, at(t, md, "delta", "stop_reason"))
			assert.Equal(t, tt.stopSequence, at(t, md, "delta", "stop_sequence"))
			assert.Equal(t, 100, num(t, at(t, md, "usage", "cache_read_input_tokens")))
		})
	}
}

func TestAnthropicEmptyTurnStillPings(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{}))
	_, _, body := do(t, srv, anthropicCall(`{"model":"m","max_tokens":9,"messages":[],"stream":true}`))
	var names []string
	for _, ev := range splitSSE(t, body, "\n\n") {
		names = append(names, ev.name)
	}
	assert.Equal(t, []string{"message_start", "ping", "message_delta", "message_stop"}, names)
}
