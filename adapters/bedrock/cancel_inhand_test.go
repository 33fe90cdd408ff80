package bedrock

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestCancelWithStreamInHand: Bedrock's recorded event-stream arrives in
// one write, so the first reads bring frames the consumer has not seen
// yet. A cancel after the first text delta still ends the stream there
// (000 §5.3): "**", the start of "**Olá!**", stop reason cancelled, and
// nothing of what was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, via := range []string{"Adapter.Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.ReadRecording(t, "bedrock-anthropic", "bedrock-invoke-stream-text").Reply())
			id := "bedrock:claude-opus-4-6"
			a := newAdapter(t, srv.URL, id, "us.anthropic.claude-opus-4-6-v1")
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := ask(id, "You are a helpful assistant", "Say hi in Portuguese", 4000)
			req.RequestID = "req_in_hand"
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { a.Cancel(req.RequestID) }
			}
			_, resp := adaptertest.CancelAt(t, a.Stream(ctx, req), canonical.EventTextDelta, cancel)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "**"}}, resp.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
