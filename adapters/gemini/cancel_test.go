package gemini

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/canonical"
)

// stalled is a reply that streams chunks and then holds the response open
// until the client goes away.
func stalled(chunks ...string) reply {
	return reply{handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		w.WriteHeader(200)
		w.Write(events(chunks...))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}}
}

// TestCancellation cancels mid-stream, through Adapter.Cancel and through
// the context, and checks the cleanup of 000 §5.3: the open tool gets its
// tool.use_end with the input received, message.complete says cancelled,
// nothing follows, and no goroutine is left behind.
func TestCancellation(t *testing.T) {
	chunks := []string{
		`{"candidates":[{"content":{"parts":[{"text":"Let me check."}],"role":"model"},"index":0}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}],"role":"model"},"index":0}]}`,
	}
	// Gemini sends each call whole, so a tool is never caught half-sent:
	// cancelling at tool.use_start still ends it with its complete input.
	for _, tc := range []struct {
		name   string
		chunks []string
		at     canonical.EventType // cancel when this event arrives
		viaCtx bool
		tools  int // tool.use_end events expected
	}{
		{"Cancel at tool.use_start", chunks, canonical.EventToolUseStart, false, 1},
		{"context at tool.use_start", chunks, canonical.EventToolUseStart, true, 1},
		{"Cancel mid-text", chunks[:1], canonical.EventTextDelta, false, 0},
		{"context mid-text", chunks[:1], canonical.EventTextDelta, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			e := newEnv(t, stalled(tc.chunks...))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := userRequest(testModel, "weather?")
			req.Tools = []canonical.ToolDefinition{getWeather}

			var evs []canonical.StreamEvent
			cancelled := false
			for ev, err := range e.a.Stream(ctx, req) {
				require.NoError(t, err, "a cancellation is not an error")
				evs = append(evs, ev)
				if ev.Type == tc.at && !cancelled {
					cancelled = true
					if tc.viaCtx {
						cancel()
					} else {
						assert.True(t, e.a.Cancel(req.RequestID))
					}
				}
			}
			require.True(t, cancelled)
			checkInvariants(t, evs)
			resp := final(t, evs)
			assert.Equal(t, canonical.StopCancelled, resp.StopReason)
			ends := 0
			for _, ev := range evs {
				if ev.Type == canonical.EventToolUseEnd {
					ends++
					assert.JSONEq(t, `{"city":"Paris"}`, string(ev.FinalInput))
				}
			}
			assert.Equal(t, tc.tools, ends)
			assert.Equal(t, "Let me check.", resp.Content.Text())
			assert.False(t, e.a.Cancel(req.RequestID), "Cancel is idempotent: the call is gone")

			e.srv.Close()
			e.transport.CloseIdleConnections()
			goleak.VerifyNone(t, ignore)
		})
	}
}
