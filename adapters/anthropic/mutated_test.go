package anthropic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestMutatedRecordings: real recordings changed in one place the
// decoder cannot understand are invalid_response errors, never a
// plausible-looking response.
func TestMutatedRecordings(t *testing.T) {
	tests := []struct {
		name, recording, file string
		old, new              string
	}{
		{"a delta for a block that is not open", "stream-parallel-tool-use-input-json-delta", "response.txt",
			`"type":"content_block_delta","index":1,`, `"type":"content_block_delta","index":7,`},
		{"a text delta on a tool_use block", "stream-parallel-tool-use-input-json-delta", "response.txt",
			`"index":1,"delta":{"type":"input_json_delta","partial_json":""}`, `"index":1,"delta":{"type":"text_delta","text":""}`},
		{"a tool_use without an id", "stream-parallel-tool-use-input-json-delta", "response.txt",
			`"id":"toolu_01UYxUYC2zRPY8wiutnF48eP",`, ``},
		{"a content block without a type", "nonstream-thinking-tool-use", "response.json",
			`"name": "get_user_country",
      "type": "tool_use"`, `"name": "get_user_country"`},
		{"a server tool input that is not JSON", "stream-server-tool-search-then-tool-use", "response.txt",
			`"partial_json":"on\"}"`, `"partial_json":"on\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mutated := adaptertest.Mutate(t, readFixture(t, tt.recording, tt.file), tt.old, tt.new)
			var err error
			if strings.HasSuffix(tt.file, ".txt") {
				_, err = streamBody(t, mutated)
			} else {
				env := newEnv(t, serve(200, "application/json", mutated))
				_, err = env.a.Complete(t.Context(), textRequest("hi"))
			}
			assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%v", err)
		})
	}
}
