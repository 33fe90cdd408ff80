package openai

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// forgetEncodings makes the process's loaded encodings unloaded for the
// test, and restores loadEncoding after it.
func forgetEncodings(t *testing.T) {
	load := loadEncoding
	encodings.Clear()
	t.Cleanup(func() {
		loadEncoding = load
		encodings.Clear()
	})
}

// TestCancelNeverLoadsTheTokenizer: the first cancel of a Responses stream
// in a process took seconds while later ones took milliseconds: the
// cancelled message's usage is estimated (the server reported none yet),
// and that estimate loaded the model's BPE encoding (o200k_base, a second
// or more). The driver now readies the tokenizer before the first
// attempt: with no encoding loaded, the one load happens before the
// request reaches the server and none after it — not in the cancel (by
// the context or by Adapter.Cancel, against a server that keeps the
// stream open), not in the estimate, which still counts with the
// encoding.
func TestCancelNeverLoadsTheTokenizer(t *testing.T) {
	body := fixture(t, "openai-responses", "stream-function-call", "response.txt")
	for _, via := range []string{"context", "Adapter.Cancel"} {
		t.Run(via, func(t *testing.T) {
			forgetEncodings(t)
			var sent atomic.Bool
			var before, after atomic.Int32
			loadEncoding = func(name string) (*bpe, error) {
				if sent.Load() {
					after.Add(1)
				} else {
					before.Add(1)
				}
				return loadBPE(name)
			}
			a, _ := newTestAdapter(t, &testServer{answer: func(_ int, w http.ResponseWriter, r *http.Request) {
				sent.Store(true)
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(body)
				w.(http.Flusher).Flush()
				<-r.Context().Done() // the stream stays open until the client goes
			}}, nil)
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			cancel := stop
			if via == "Adapter.Cancel" {
				cancel = func() { a.Cancel("req_test") }
			}
			req := userRequest("openai:gpt-5", "capital? 123456789012345678901234567890")
			_, resp := adaptertest.CancelAt(t, a.Stream(ctx, req), canonical.EventToolUseInput, cancel)
			assert.Equal(t, canonical.StopCancelled, resp.StopReason)
			assert.True(t, resp.Usage.Estimated, "the server reported no usage before the cancel")
			assert.True(t, sent.Load(), "the request reached the server")
			assert.Equal(t, int32(1), before.Load(), "loads before the request was sent: o200k_base, once")
			assert.Equal(t, int32(0), after.Load(), "loads after the request was sent: the cancel or its estimate loaded a tokenizer")
			// The estimate counted with the encoding, not at the byte rate.
			byRate := Estimator
			byRate.Tokenizer = nil
			want := Estimator.Estimate(req)
			assert.Equal(t, want, resp.Usage.InputTokens)
			if want == byRate.Estimate(req) {
				t.Fatalf("the request estimates %d tokens with the encoding and at the byte rate alike: it cannot tell them apart", want)
			}
		})
	}
}
