package gemini

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestCancelWithStreamInHand: the server sends a whole recorded stream in
// one write, so the first reads bring chunks the consumer has not seen
// yet. A cancel after the first text delta still ends the stream there
// (000 §5.3): the first chunk's text, stop reason cancelled, and nothing
// of what was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, via := range []string{"Adapter.Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			e := newEnv(t, sseReply(readFixture(t, "stream-image-inlinedata-input", "response.txt")))
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := userRequest(testModel, "describe it")
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { e.a.Cancel(req.RequestID) }
			}
			evs, resp := adaptertest.CancelAt(t, e.a.Stream(ctx, req), canonical.EventTextDelta, cancel)
			checkInvariants(t, evs)
			want := canonical.Blocks{canonical.TextBlock{Text: "Of course! Here are a few ways to describe the image, from brief to more detailed.\n\n**Short and"}}
			if diff := cmp.Diff(want, resp.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
