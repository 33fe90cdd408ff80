package gemini

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestMutatedRecordings: real recordings changed in one place the
// decoder cannot understand are invalid_response errors, never a
// plausible-looking response (an empty call, a lost argument).
func TestMutatedRecordings(t *testing.T) {
	tests := []struct {
		name, recording, file string
		old, new              string
	}{
		{"a call without a name", "stream-functioncall-with-id-thinking", "response.txt",
			`"name": "weather",`, ``},
		{"arguments that are not an object", "stream-functioncall-with-id-thinking", "response.txt",
			`"args": {"location": "Florence, Italy"}`, `"args": ["Florence, Italy"]`},
		{"a finish reason that is neither a name nor a number", "stream-functioncall-with-id-thinking", "response.txt",
			`"finishReason": "STOP"`, `"finishReason": {"name": "STOP"}`},
		{"a whole body whose call has no name", "nonstream-functioncall-no-args", "response.json",
			`"name": "get_user_country"`, `"name": ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mutated := adaptertest.Mutate(t, readFixture(t, tt.recording, tt.file), tt.old, tt.new)
			var err error
			if strings.HasSuffix(tt.file, ".txt") {
				_, _, err = decodeEvents(t, mutated, nil)
			} else {
				_, err = decodeWhole(t, mutated)
			}
			assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%v", err)
		})
	}
}
