package azure

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestCancelWithStreamInHand: Azure's recorded Responses stream arrives in
// one write, so the first reads bring events the consumer has not seen
// yet. A cancel after the first fragment of the function call's
// arguments still ends the stream there (000 §5.3): the (empty)
// reasoning, the call with {}, stop reason cancelled, and nothing of what
// was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, via := range []string{"Adapter.Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.ReadRecording(t, "openai-responses", "azure-stream-function-call").Reply())
			id := "azure:o4-mini"
			a := newAdapter(t, srv.URL, id, "o4-mini", nil, nil)
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := weather(id, "What's the weather in Florence,Italy?", 4000)
			req.RequestID = "req_in_hand"
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { a.Cancel(req.RequestID) }
			}
			_, resp := adaptertest.CancelAt(t, a.Stream(ctx, req), canonical.EventToolUseInput, cancel)
			want := canonical.Blocks{canonical.ThinkingBlock{}, canonical.ToolUseBlock{Name: "weather", Input: json.RawMessage(`{}`)}}
			if diff := cmp.Diff(want, resp.Content, cmp.Transformer("noID", func(b canonical.ToolUseBlock) canonical.ToolUseBlock {
				b.ID = ""
				return b
			})); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
