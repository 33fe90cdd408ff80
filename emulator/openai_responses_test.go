package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func TestResponsesStream(t *testing.T) {
	reply := toolTurn
	reply.Thinking = "**Plan**\n\nAdd.\n\n**Check**\n\nOk."
	srv := start(t, emulator.WithChunkSize(64), emulator.WithReplies(reply))
	status, h, body := do(t, srv, responsesCall(`{"model":"gpt-5","stream":true,"input":"add",
		"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"]}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "text/event-stream; charset=utf-8", h.Get("Content-Type"))

	events := splitSSE(t, body, "\n\n")
	var names []string
	d := make([]map[string]any, len(events))
	for i, ev := range events {
		names = append(names, ev.name)
		d[i] = obj(t, ev.data)
		assert.Equal(t, ev.name, d[i]["type"])
		assert.Equal(t, i, num(t, d[i]["sequence_number"]), "every event has its sequence_number")
	}
	require.Equal(t, []string{
		"response.created", "response.in_progress",
		"response.output_item.added",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}, names)
	assert.Equal(t, "req_emu_0006", h.Get("X-Request-Id"))

	assert.Equal(t, "resp_emu_0001", at(t, d[0], "response", "id"))
	assert.Equal(t, "in_progress", at(t, d[0], "response", "status"))
	assert.Equal(t, []any{}, at(t, d[0], "response", "output"))
	assert.Nil(t, at(t, d[0], "response", "usage"))
	assert.Equal(t, "auto", at(t, d[0], "response", "reasoning", "summary"), "the request's reasoning is echoed")

	enc := "gAAAAAB" + base64.URLEncoding.EncodeToString([]byte("emulator-reasoning-0002"))
	assert.Equal(t, map[string]any{"id": "rs_emu_0002", "type": "reasoning", "encrypted_content": enc, "summary": []any{}}, d[2]["item"])
	assert.Equal(t, "rs_emu_0002", d[3]["item_id"])
	assert.Equal(t, 0, num(t, d[3]["summary_index"]))
	assert.Equal(t, map[string]any{"type": "summary_text", "text": ""}, d[3]["part"])
	assert.Equal(t, "**Plan**\n\nAdd.", d[4]["delta"])
	assert.Equal(t, "**Plan**\n\nAdd.", d[5]["text"])
	assert.Equal(t, 1, num(t, d[7]["summary_index"]))
	assert.Equal(t, "**Check**\n\nOk.", d[9]["text"])
	assert.Equal(t, []any{
		map[string]any{"type": "summary_text", "text": "**Plan**\n\nAdd."},
		map[string]any{"type": "summary_text", "text": "**Check**\n\nOk."},
	}, at(t, d[11], "item", "summary"))

	assert.Equal(t, 1, num(t, d[12]["output_index"]))
	assert.Equal(t, map[string]any{"id": "msg_emu_0003", "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}, d[12]["item"])
	assert.Equal(t, "", at(t, d[13], "part", "text"))
	assert.Equal(t, "Hello, world!", d[14]["delta"])
	assert.Equal(t, "Hello, world!", d[15]["text"])
	assert.Equal(t, "completed", at(t, d[17], "item", "status"))

	assert.Equal(t, 2, num(t, d[18]["output_index"]))
	assert.Equal(t, map[string]any{"id": "fc_emu_0004", "type": "function_call", "status": "in_progress",
		"arguments": "", "call_id": "call_emu_0005", "name": "add"}, d[18]["item"])
	assert.Equal(t, "fc_emu_0004", d[19]["item_id"])
	args := ""
	for _, e := range d[19:28] {
		args += e["delta"].(string)
		assert.NotEmpty(t, e["obfuscation"], "delta events carry obfuscation padding")
	}
	assert.Equal(t, `{"`, d[19]["delta"], "uneven, token-like pieces")
	assert.Equal(t, `{"a":2,"b":3}`, args)
	assert.Equal(t, `{"a":2,"b":3}`, d[28]["arguments"])
	assert.NotContains(t, d[28], "obfuscation")

	done := d[len(d)-1]["response"]
	assert.Equal(t, "completed", at(t, done, "status"))
	assert.Len(t, at(t, done, "output"), 3)
	assert.Equal(t, 10, num(t, at(t, done, "usage", "input_tokens")))
	assert.Equal(t, 20, num(t, at(t, done, "usage", "output_tokens")))
	assert.Equal(t, 5, num(t, at(t, done, "usage", "output_tokens_details", "reasoning_tokens")))
	assert.Equal(t, 30, num(t, at(t, done, "usage", "total_tokens")))
}

func TestResponsesDeltasAreChunked(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "Hello, world!"}))
	_, _, body := do(t, srv, responsesCall(`{"model":"gpt-5","stream":true,"input":"hi"}`))
	var deltas []any
	for _, ev := range splitSSE(t, body, "\n\n") {
		if ev.name == "response.output_text.delta" {
			deltas = append(deltas, obj(t, ev.data)["delta"])
		}
	}
	assert.Equal(t, []any{"Hello, world", "!"}, deltas)
}

func TestResponsesNonStream(t *testing.T) {
	srv := start(t, emulator.WithReplies(toolTurn))
	status, _, body := do(t, srv, responsesCall(`{"model":"gpt-5","input":"add","instructions":"Be brief.","temperature":0.5}`))
	require.Equal(t, 200, status, body)
	m := obj(t, body)
	assert.Equal(t, "resp_emu_0001", m["id"])
	assert.Equal(t, "response", m["object"])
	assert.Equal(t, 1767225600, num(t, m["created_at"]))
	assert.Equal(t, "completed", m["status"])
	assert.Equal(t, "Be brief.", m["instructions"])
	assert.Equal(t, json.Number("0.5"), m["temperature"], "the request's temperature is echoed")
	assert.Equal(t, json.Number("1.0"), m["top_p"], "default top_p is written 1.0")
	// Reasoning was not asked for: the item is there, without summary or
	// encrypted_content.
	assert.Equal(t, []any{
		map[string]any{"id": "rs_emu_0002", "type": "reasoning", "summary": []any{}},
		map[string]any{"id": "msg_emu_0003", "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": "Hello, world!"}}},
		map[string]any{"id": "fc_emu_0004", "type": "function_call", "status": "completed",
			"arguments": `{"a":2,"b":3}`, "call_id": "call_emu_0005", "name": "add"},
	}, m["output"])
}

func TestResponsesIncomplete(t *testing.T) {
	tests := []struct {
		stop   canonical.StopReason
		reason string
	}{
		{canonical.StopMaxTokens, "max_output_tokens"},
		{canonical.StopContentFilter, "content_filter"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			r := emulator.Reply{Text: "partial", StopReason: tt.stop}
			srv := start(t, emulator.WithReplies(r, r))
			_, _, body := do(t, srv, responsesCall(`{"model":"gpt-5","input":"x"}`))
			m := obj(t, body)
			assert.Equal(t, "incomplete", m["status"])
			assert.Equal(t, map[string]any{"reason": tt.reason}, m["incomplete_details"])

			_, _, body = do(t, srv, responsesCall(`{"model":"gpt-5","input":"x","stream":true}`))
			events := splitSSE(t, body, "\n\n")
			last := events[len(events)-1]
			assert.Equal(t, "response.incomplete", last.name)
			assert.Equal(t, "incomplete", at(t, obj(t, last.data), "response", "status"))
		})
	}
}
