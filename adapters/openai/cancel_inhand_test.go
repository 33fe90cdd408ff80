package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// TestCancelWithStreamInHand: the server sends a whole recorded stream in
// one write, so the first reads bring events the consumer has not seen
// yet. A cancel after the first fragment of a tool's arguments still ends
// the stream there on both dialects (000 §5.3): the tool with {}, stop
// reason cancelled, and nothing of what was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, tc := range []struct {
		model, api, recording string
		tool                  string
	}{
		{"openai:gpt-5", "openai-responses", "stream-function-call", "get_capital"},
		{"openai:gpt-4.1", "openai-chat", "stream-tool-call-include-usage", "get_capital"},
	} {
		for _, via := range []string{"Adapter.Cancel", "context"} {
			t.Run(tc.api+", "+via, func(t *testing.T) {
				body := fixture(t, tc.api, tc.recording, "response.txt")
				a, _ := newTestAdapter(t, &testServer{answer: serve(200, "text/event-stream", body)}, nil)
				ctx, stop := context.WithCancel(t.Context())
				defer stop()
				cancel := stop
				if via == "Adapter.Cancel" {
					cancel = func() { a.Cancel("req_test") }
				}
				evs, resp := adaptertest.CancelAt(t, a.Stream(ctx, userRequest(tc.model, "capital?")), canonical.EventToolUseInput, cancel)
				assert.Empty(t, streamcheck.Check(evs, streamcheck.Cancelled()))
				require.Len(t, resp.Content, 1)
				tu, ok := resp.Content[0].(canonical.ToolUseBlock)
				require.True(t, ok, "block %T", resp.Content[0])
				if diff := cmp.Diff(canonical.ToolUseBlock{ID: tu.ID, Name: tc.tool, Input: json.RawMessage(`{}`)}, tu); diff != "" {
					t.Errorf("tool (-want +got):\n%s", diff)
				}
			})
		}
	}
}
