package emulator_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func TestGeminiStreamThoughtsAndFunctionCall(t *testing.T) {
	reply := toolTurn
	reply.ToolCalls = append(reply.ToolCalls, emulator.ToolCall{ID: "9d532gc9", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)})
	srv := start(t, emulator.WithReplies(reply))
	status, h, body := do(t, srv, geminiCall("gemini-x", true, `{"contents":[{"role":"user","parts":[{"text":"add"}]}],
		"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "text/event-stream", h.Get("Content-Type"))
	assert.NotContains(t, strings.ReplaceAll(body, "\r\n", ""), "\n", "every line ends with CRLF")

	events := splitSSE(t, body, "\r\n\r\n")
	require.Len(t, events, 6)
	assert.True(t, strings.HasPrefix(events[0].data, `{"candidates": [{"content": {"parts": [{"text": "Let me add t","thought": true}],"role": "model"},"index": 0}]`),
		"Google's layout: a space after each colon, none after commas: %s", events[0].data)

	d := make([]map[string]any, len(events))
	for i, ev := range events {
		assert.Empty(t, ev.name)
		d[i] = obj(t, ev.data)
		assert.Equal(t, "gemini-x", d[i]["modelVersion"])
		assert.Equal(t, "emu_0001", d[i]["responseId"])
		assert.Equal(t, "model", at(t, d[i], "candidates", 0, "content", "role"))
		assert.Equal(t, 10, num(t, at(t, d[i], "usageMetadata", "promptTokenCount")))
	}
	part := func(i, j int) any { return at(t, d[i], "candidates", 0, "content", "parts", j) }
	usage := func(i int, key string) int {
		u := at(t, d[i], "usageMetadata").(map[string]any)
		if v, ok := u[key]; ok {
			return num(t, v)
		}
		return 0
	}

	assert.Equal(t, map[string]any{"text": "Let me add t", "thought": true}, part(0, 0))
	assert.Equal(t, map[string]any{"text": "hem.", "thought": true}, part(1, 0))
	assert.Equal(t, map[string]any{"text": "Hello, world"}, part(2, 0), "with function calls the signature rides on the first call")
	assert.Equal(t, map[string]any{"text": "!"}, part(3, 0))
	assert.Equal(t, map[string]any{
		"functionCall":     map[string]any{"name": "add", "args": map[string]any{"a": json.Number("2"), "b": json.Number("3")}},
		"thoughtSignature": sig("0001"),
	}, part(4, 0), "no id unless the script gives one")
	assert.Equal(t, map[string]any{
		"functionCall": map[string]any{"name": "weather", "args": map[string]any{"location": "Florence"}, "id": "9d532gc9"},
	}, part(4, 1))
	assert.Equal(t, map[string]any{"text": ""}, part(5, 0))
	for i := range 5 {
		assert.NotContains(t, at(t, d[i], "candidates", 0), "finishReason")
	}
	assert.Equal(t, "STOP", at(t, d[5], "candidates", 0, "finishReason"))

	// usageMetadata is cumulative: thoughts grow first (5*12/16 = 3 after
	// the first 12 of 16 bytes), then candidates (15*12/14 = 12 after 12
	// of the 13 text bytes and the call);
	// the total always adds up.
	assert.Equal(t, []int{3, 5, 5, 5, 5, 5}, []int{usage(0, "thoughtsTokenCount"), usage(1, "thoughtsTokenCount"),
		usage(2, "thoughtsTokenCount"), usage(3, "thoughtsTokenCount"), usage(4, "thoughtsTokenCount"), usage(5, "thoughtsTokenCount")})
	var cands []int
	for i := range d {
		cands = append(cands, usage(i, "candidatesTokenCount"))
		assert.Equal(t, 10+usage(i, "candidatesTokenCount")+usage(i, "thoughtsTokenCount"), usage(i, "totalTokenCount"))
	}
	assert.Equal(t, []int{0, 0, 12, 13, 15, 15}, cands)
}

func TestGeminiStreamTextOnly(t *testing.T) {
	reply := emulator.Reply{Thinking: "hidden", Text: "The capital is Paris.", Usage: canonical.TokenUsage{InputTokens: 5, OutputTokens: 9, ReasoningTokens: 4}}
	srv := start(t, emulator.WithReplies(reply))
	_, _, body := do(t, srv, geminiCall("gemini-x", true, `{"contents":[{"role":"user","parts":[{"text":"?"}]}]}`))
	events := splitSSE(t, body, "\r\n\r\n")
	require.Len(t, events, 2, "no thought parts unless includeThoughts")
	first, last := obj(t, events[0].data), obj(t, events[1].data)
	assert.Equal(t, map[string]any{"text": "The capital ", "thoughtSignature": sig("0001")}, at(t, first, "candidates", 0, "content", "parts", 0))
	assert.Equal(t, 4, num(t, at(t, first, "usageMetadata", "thoughtsTokenCount")), "hidden thoughts are still counted")
	assert.Equal(t, map[string]any{"text": "is Paris."}, at(t, last, "candidates", 0, "content", "parts", 0))
	assert.Equal(t, "STOP", at(t, last, "candidates", 0, "finishReason"), "the last text chunk carries finishReason")
	assert.Equal(t, 5, num(t, at(t, last, "usageMetadata", "candidatesTokenCount")))
	assert.Equal(t, 14, num(t, at(t, last, "usageMetadata", "totalTokenCount")))
}

func TestGeminiNonStream(t *testing.T) {
	reply := emulator.Reply{Text: "Hi", StopReason: canonical.StopMaxTokens, Usage: canonical.TokenUsage{InputTokens: 3, CachedInputTokens: 4, OutputTokens: 2}}
	srv := start(t, emulator.WithReplies(reply))
	status, h, body := do(t, srv, geminiCall("gemini-2.5-pro", false, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	require.Equal(t, 200, status, body)
	assert.Equal(t, "application/json; charset=UTF-8", h.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(body, "{\n  \"candidates\": [\n"), "indented two spaces: %s", body)
	assert.JSONEq(t, `{
		"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],
		"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":2,"totalTokenCount":9,"cachedContentTokenCount":4,
			"promptTokensDetails":[{"modality":"TEXT","tokenCount":7}]},
		"modelVersion":"gemini-2.5-pro","responseId":"emu_0001"
	}`, body)
}

func TestGeminiKeyInQuery(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "ok"}))
	status, _, body := do(t, srv, call{path: "/v1beta/models/g:generateContent?key=" + testGoogKey, body: `{"contents":[]}`})
	assert.Equal(t, 200, status, body)
}

func TestGeminiStreamWithoutAltSSEIsAJSONArray(t *testing.T) {
	reply := emulator.Reply{Text: "Hello there, world!", Usage: canonical.TokenUsage{InputTokens: 5, OutputTokens: 4}}
	srv := start(t, emulator.WithReplies(reply))
	c := geminiCall("gemini-2.5-flash", false, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	c.path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
	status, h, body := do(t, srv, c)
	require.Equal(t, 200, status, body)
	assert.Equal(t, "application/json; charset=UTF-8", h.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(body, "[{\n"), body)
	assert.True(t, strings.HasSuffix(body, "\n]"), body)
	assert.Contains(t, body, "\n,\r\n{", "elements are separated as Google separates them")
	var chunks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &chunks))
	require.Len(t, chunks, 2)
	text := ""
	for _, ch := range chunks {
		text += at(t, ch, "candidates", 0, "content", "parts", 0, "text").(string)
	}
	assert.Equal(t, "Hello there, world!", text)
	assert.Equal(t, "STOP", at(t, chunks[1], "candidates", 0, "finishReason"))
}
