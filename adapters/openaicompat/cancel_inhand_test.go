package openaicompat

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// TestCancelWithStreamInHand: a vLLM server's recorded stream arrives in
// one write, so the first reads bring chunks the consumer has not seen
// yet. A cancel after the first text delta still ends the stream there
// (000 §5.3): "1" of "1, 2, 3, 4, 5", stop reason cancelled, and nothing
// of what was already read after it.
func TestCancelWithStreamInHand(t *testing.T) {
	for _, via := range []string{"Adapter.Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			body := fixture(t, "openai-chat", "vllm-crusoe-stream-text-token-ids", "response.txt")
			srv := newStub(t).on(chatRoute, reply{body: string(body)})
			a := mustNew(t, newConfig(KindVLLM, srv.URL+"/v1", newEnv()))
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := request(vllmPersona.model, userMsg("count to five"))
			req.RequestID = "req_in_hand"
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { a.Cancel(req.RequestID) }
			}
			_, resp := adaptertest.CancelAt(t, a.Stream(ctx, req), canonical.EventTextDelta, cancel)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "1"}}, resp.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
