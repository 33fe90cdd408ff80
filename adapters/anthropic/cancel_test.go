package anthropic

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// stallInTool streams text and half of a tool's input, then waits for the
// client to go away.
func stallInTool(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	_, _ = w.Write(sse(evStart, evTextStart, evTextHello, evStop0,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_c1","name":"read_file","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"READ"}}`,
	))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestCancellationCleanup is 000 §10.1.12 and §9.4: a cancel in the middle
// of a tool's input ends the tool with {}, completes the message as
// cancelled, ends the iterator, and leaks nothing.
func TestCancellationCleanup(t *testing.T) {
	tests := []struct {
		name   string
		cancel func(a *driver.Adapter, requestID string, stop context.CancelFunc)
	}{
		{"Adapter.Cancel", func(a *driver.Adapter, id string, _ context.CancelFunc) {
			assert.True(t, a.Cancel(id), "the call is in flight")
			assert.False(t, a.Cancel(id), "cancel is idempotent")
		}},
		{"context", func(_ *driver.Adapter, _ string, stop context.CancelFunc) { stop() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The snapshot is taken before the call and checked after it,
			// once the server and the idle connections are closed: any
			// goroutine the call started and left running fails the test.
			before := goleak.IgnoreCurrent()
			env := newEnv(t, stallInTool)
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			req := textRequest("read it")
			req.RequestID = "req_cancel_" + tt.name

			var evs []canonical.StreamEvent
			for ev, err := range env.a.Stream(ctx, req) {
				require.NoError(t, err, "a cancelled stream yields no error")
				evs = append(evs, ev)
				if ev.Type == canonical.EventToolUseInput {
					tt.cancel(env.a, req.RequestID, stop)
				}
			}
			resp := checkInvariants(t, evs)
			assert.Equal(t, canonical.StopCancelled, resp.StopReason)
			ends := adaptertest.EventsOf(evs, canonical.EventToolUseEnd)
			require.Len(t, ends, 1)
			assert.JSONEq(t, `{}`, string(ends[0].FinalInput))
			require.Len(t, resp.Content, 2)
			if diff := cmp.Diff(canonical.TextBlock{Text: "Hello"}, resp.Content[0]); diff != "" {
				t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
			}
			tu, ok := resp.Content[1].(canonical.ToolUseBlock)
			require.True(t, ok)
			assert.Equal(t, "read_file", tu.Name)
			assert.JSONEq(t, `{}`, string(tu.Input))
			assert.False(t, env.a.Cancel(req.RequestID), "nothing left to cancel")

			env.srv.Close()
			require.NoError(t, env.a.Close())
			goleak.VerifyNone(t, before)
		})
	}
}
