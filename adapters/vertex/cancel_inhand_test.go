package vertex

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestCancelWithStreamInHand: Claude on Vertex's recorded stream arrives
// in one write, so the first reads bring events the consumer has not
// seen yet. A cancel after the first text delta still ends the stream
// there (000 §5.3): "Olá! Como" of "Olá! Como posso ajudar você hoje?",
// stop reason cancelled, and nothing of what was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, via := range []string{"Adapter.Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.ReadRecording(t, "anthropic", "vertex-stream-text").Reply())
			a, id := recordedAdapter(t, true, srv.URL, "claude-3-7-sonnet@20250219", nil)
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := weatherRequest(id, false, "Say hi in Portuguese")
			req.RequestID = "req_in_hand"
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { a.Cancel(req.RequestID) }
			}
			_, resp := adaptertest.CancelAt(t, a.Stream(ctx, req), canonical.EventTextDelta, cancel)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Olá! Como"}}, resp.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
