package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestCancelWithStreamInHand: the server sends a whole recorded stream in
// one write, so the first reads bring events the consumer has not seen
// yet. A cancel after the first fragment of a tool's input still ends
// the stream there (000 §5.3): the text so far, the tool with {}, stop
// reason cancelled, and nothing of what was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, via := range []string{"Adapter.Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			env := newEnv(t, serveFixture(t, "stream-parallel-tool-use-input-json-delta"))
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := textRequest("add and multiply 2 and 3")
			req.RequestID = "req_in_hand"
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { env.a.Cancel(req.RequestID) }
			}
			evs, resp := adaptertest.CancelAt(t, env.a.Stream(ctx, req), canonical.EventToolUseInput, cancel)
			checkInvariants(t, evs)
			tu, ok := resp.Content[len(resp.Content)-1].(canonical.ToolUseBlock)
			require.True(t, ok, "last block %T", resp.Content[len(resp.Content)-1])
			want := canonical.Blocks{
				canonical.TextBlock{Text: "I'll add and multiply the numbers 2 and 3 for you."},
				canonical.ToolUseBlock{ID: tu.ID, Name: "add", Input: json.RawMessage(`{}`)},
			}
			if diff := cmp.Diff(want, resp.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
