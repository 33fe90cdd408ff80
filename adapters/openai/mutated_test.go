package openai

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestMutatedRecordings: real recordings changed in one place the
// decoders cannot understand are invalid_response errors (or, for a
// finish reason nobody defines, unknown_finish_reason), never a
// plausible-looking response.
func TestMutatedRecordings(t *testing.T) {
	chat := ChatDialect{Provider: "openai", StreamOptions: true}
	resp := responsesDialect{provider: "openai", reasoning: true}
	tests := []struct {
		name, api, recording, file string
		old, new                   string
		code                       string
	}{
		{"chat: a tool call without a name", "openai-chat", "stream-tool-call-include-usage", "response.txt",
			`"name":"get_capital"`, `"name":""`, canonical.CodeInvalidResponse},
		{"chat: arguments after the call ended", "openai-chat", "stream-parallel-tool-calls", "response.txt",
			`"finish_reason":"tool_calls"`, `"finish_reason":null`, ""},
		{"chat: an unknown finish reason", "openai-chat", "stream-tool-call-include-usage", "response.txt",
			`"finish_reason":"tool_calls"`, `"finish_reason":"tool_call"`, canonical.CodeUnknownFinishReason},
		{"chat: a body whose choice has no message", "openai-chat", "nonstream-tool-call", "response.json",
			`"message": {`, `"messages": {`, canonical.CodeInvalidResponse},
		{"responses: the final output names another item type", "openai-responses", "stream-function-call", "response.txt",
			`"output":[{"type":"function_call"`, `"output":[{"type":"message"`, canonical.CodeInvalidResponse},
		{"responses: a body in progress", "openai-responses", "nonstream-function-call", "response.json",
			"\"service_tier\": \"default\",\n  \"status\": \"completed\"", "\"service_tier\": \"default\",\n  \"status\": \"in_progress\"", canonical.CodeInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mutated := adaptertest.Mutate(t, fixture(t, tt.api, tt.recording, tt.file), tt.old, tt.new)
			var r decodeResult
			switch {
			case tt.api == "openai-chat" && strings.HasSuffix(tt.file, ".txt"):
				r = runDecoder(chat.DecodeStream, mutated, nil)
			case tt.api == "openai-chat":
				r = runBody(chat.DecodeBody, mutated, nil)
			case strings.HasSuffix(tt.file, ".txt"):
				r = runDecoder(resp.DecodeStream, mutated, nil)
			default:
				r = runBody(resp.DecodeBody, mutated, nil)
			}
			if tt.code == "" {
				// No finish reason: the stream never completes, which the
				// runtime reports as truncated — not a response.
				assert.NoError(t, r.err)
				assert.Nil(t, r.resp)
				return
			}
			assert.Equal(t, tt.code, canonical.CodeOf(r.err), "%v", r.err)
			assert.Nil(t, r.resp)
		})
	}
}
