package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

// TestChatStreamToolCallsWithoutIndex decodes streamed tool calls whose
// deltas carry no index, as Ollama's OpenAI-compatible API sent them
// before 0.5 (ollama/ollama#7881), Gemini's OpenAI endpoint and some
// proxies send them; scenario quirks/chat-tool-calls-without-index
// replays the first case on the ollama column.
func TestChatStreamToolCallsWithoutIndex(t *testing.T) {
	tests := []struct {
		name    string
		body    []byte
		content string
	}{
		{name: "two whole calls in two chunks stay two calls",
			body: sse(`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Tokyo\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			content: `[{"type":"tool_use","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","name":"get_weather","input":{"city":"Tokyo"}}]`},
		{name: "two calls in one chunk",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":"{}"}},{"id":"call_b","function":{"name":"g","arguments":"{\"x\":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			content: `[{"type":"tool_use","name":"f","input":{}},{"type":"tool_use","name":"g","input":{"x":1}}]`},
		{name: "argument pieces without id or name continue the last call",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"a\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_b","function":{"name":"g","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			content: `[{"type":"tool_use","name":"f","input":{"a":1}},{"type":"tool_use","name":"g","input":{}}]`},
		{name: "a repeated id continues its call",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":":2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			content: `[{"type":"tool_use","name":"f","input":{"a":2}}]`},
		{name: "an indexed call after unindexed ones takes its own index",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"g","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			content: `[{"type":"tool_use","name":"f","input":{}},{"type":"tool_use","name":"g","input":{}}]`},
	}
	for _, tc := range tests {
		for _, fast := range []bool{true, false} {
			t.Run(tc.name, func(t *testing.T) {
				defer func(was bool) { fastPaths = was }(fastPaths)
				fastPaths = fast
				d := ChatDialect{Provider: "openai"}
				r := runDecoder(d.DecodeStream, tc.body, nil)
				require.NoError(t, r.err)
				require.NotNil(t, r.resp)
				assert.Empty(t, streamFindings(r))
				assert.Equal(t, canonical.StopToolUse, r.resp.StopReason)
				assertContent(t, tc.content, r.resp.Content)
			})
		}
	}

	t.Run("a first delta without a name is refused", func(t *testing.T) {
		d := ChatDialect{Provider: "openai"}
		r := runDecoder(d.DecodeStream, sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"arguments":"{}"}}]}}]}`), nil)
		var ae *canonical.AdapterError
		require.ErrorAs(t, r.err, &ae)
		assert.Equal(t, canonical.CodeInvalidResponse, ae.Code)
		assert.Contains(t, ae.Error(), "without a function name")
	})
}
