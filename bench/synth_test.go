package bench

import (
	"bytes"
	"testing"
)

// The large streams: 500+ events with thinking, text and long tool
// arguments, built from real recorded events of each dialect — the same
// members in the same order with the same spacing and padding — with only
// the content values replaced (real model prose from the recordings, and
// a 16 KiB tool argument cut into the small fragments providers send).

// argBytes is the size of the synthesized tool arguments.
const argBytes = 16 << 10

func largeAnthropic(tb testing.TB) []byte {
	tb.Helper()
	think := parseSSE(tb, recording(tb, "anthropic", "stream-thinking-signature", "response.txt"))
	tool := parseSSE(tb, recording(tb, "anthropic", "stream-parallel-tool-use-input-json-delta", "response.txt"))
	words := prose(tb)
	stop := find(tb, think, `"type":"content_block_stop"`)
	evs := []sseEvent{
		find(tb, think, `"type":"message_start"`),
		find(tb, think, `"type":"content_block_start"`, `"type":"thinking"`),
		find(tb, think, `"type": "ping"`),
	}
	td := find(tb, think, `"type":"thinking_delta"`)
	for _, w := range repeatText(words, 250) {
		evs = append(evs, withString(tb, td, "thinking", w))
	}
	evs = append(evs, find(tb, think, `"type":"signature_delta"`), withInt(tb, stop, "index", 0),
		withInt(tb, find(tb, think, `"type":"content_block_start"`, `"type":"text"`), "index", 1))
	xd := withInt(tb, find(tb, think, `"type":"text_delta"`), "index", 1)
	for _, w := range repeatText(words[250:], 250) {
		evs = append(evs, withString(tb, xd, "text", w))
	}
	evs = append(evs, withInt(tb, stop, "index", 1),
		withInt(tb, find(tb, tool, `"type":"content_block_start"`, `"type":"tool_use"`), "index", 2))
	jd := withInt(tb, find(tb, tool, `"type":"input_json_delta"`), "index", 2)
	for _, f := range fragments(longArguments(tb, argBytes), 48) {
		evs = append(evs, withString(tb, jd, "partial_json", f))
	}
	evs = append(evs, withInt(tb, stop, "index", 2),
		find(tb, tool, `"type":"message_delta"`),
		find(tb, tool, `"type":"message_stop"`))
	return writeSSE(evs)
}

func largeChat(tb testing.TB) []byte {
	tb.Helper()
	text := parseSSE(tb, recording(tb, "openai-chat", "stream-text-include-usage", "response.txt"))
	tool := parseSSE(tb, recording(tb, "openai-chat", "stream-tool-call-include-usage", "response.txt"))
	words := prose(tb)
	evs := []sseEvent{text[0]}
	cd := find(tb, text, `"delta":{"content":"`)
	for _, w := range repeatText(words, 300) {
		evs = append(evs, withString(tb, cd, "content", w))
	}
	evs = append(evs, find(tb, tool, `"tool_calls":[{"index":0,"id":"`))
	ad := find(tb, tool, `"function":{"arguments":"`)
	for _, f := range fragments(longArguments(tb, argBytes), 48) {
		evs = append(evs, withString(tb, ad, "arguments", f))
	}
	evs = append(evs, find(tb, tool, `"finish_reason":"tool_calls"`), find(tb, tool, `"usage":{"prompt_tokens"`), find(tb, tool, `[DONE]`))
	// One chunk id and model for the whole stream, as a server sends.
	id, _ := stringMember(text[0].data, 0, "id")
	for i := range evs {
		if bytes.HasPrefix(evs[i].data, []byte(`{"id":`)) {
			evs[i] = withString(tb, evs[i], "id", id)
		}
	}
	return writeSSE(evs)
}

func largeResponses(tb testing.TB) []byte {
	tb.Helper()
	fc := parseSSE(tb, recording(tb, "openai-responses", "stream-function-call", "response.txt"))
	args := longArguments(tb, argBytes)
	evs := []sseEvent{
		find(tb, fc, `"type":"response.created"`),
		find(tb, fc, `"type":"response.in_progress"`),
		find(tb, fc, `"type":"response.output_item.added"`),
	}
	ad := find(tb, fc, `"type":"response.function_call_arguments.delta"`)
	for _, f := range fragments(args, 32) {
		evs = append(evs, withString(tb, ad, "delta", f))
	}
	evs = append(evs,
		withString(tb, find(tb, fc, `"type":"response.function_call_arguments.done"`), "arguments", args),
		withString(tb, find(tb, fc, `"type":"response.output_item.done"`), "arguments", args),
		withString(tb, find(tb, fc, `"type":"response.completed"`), "arguments", args))
	return writeSSE(evs)
}

func largeGemini(tb testing.TB) []byte {
	tb.Helper()
	parts := parseSSE(tb, recording(tb, "gemini", "stream-thought-parts", "response.txt"))
	call := parseSSE(tb, recording(tb, "gemini", "stream-functioncall-thought-signature", "response.txt"))
	var thought, text sseEvent
	for _, ev := range parts {
		switch {
		case bytes.Contains(ev.data, []byte(`"finishReason"`)):
		case bytes.Contains(ev.data, []byte(`"thought": true`)):
			if thought.data == nil {
				thought = ev
			}
		case text.data == nil && !bytes.Contains(ev.data, []byte(`"thoughtSignature"`)):
			text = ev // only a first text part carries a signature
		}
	}
	mustf(tb, thought.data != nil && text.data != nil, "stream-thought-parts lacks a thought or a text chunk")
	words := prose(tb)
	var evs []sseEvent
	for _, w := range repeatText(words, 100) {
		evs = append(evs, withString(tb, thought, "text", w))
	}
	for _, w := range repeatText(words[100:], 400) {
		evs = append(evs, withString(tb, text, "text", w))
	}
	evs = append(evs, with(tb, find(tb, call, `"functionCall"`), "args", []byte(longArguments(tb, argBytes))),
		parts[len(parts)-1])
	return writeSSE(evs)
}
