package driver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/canonical"
)

// inHandDecoder feeds an Assembler a whole turn as a decoder does with
// events a single read brought in, ignoring what the calls return, and
// ends it as the wire says: text, a tool's input in three fragments,
// usage, tool_use.
func inHandDecoder(a *Assembler) {
	a.TextDelta(0, "Reading")
	a.TextDelta(0, " it.")
	a.ToolStart(1, "toolu_1", "read_file")
	a.ToolInputDelta(1, `{"path"`)
	a.ToolInputDelta(1, `: "README`)
	a.ToolInputDelta(1, `.md"}`)
	a.EndBlock(1)
	a.UsageUpdate(canonical.TokenUsage{InputTokens: 5, OutputTokens: 9})
	a.Finish(canonical.StopToolUse, "tool_use")
}

// TestAssemblerEventsInHandAfterCancel: the Assembler looks at the call's
// context before every event, so a decoder that keeps decoding events
// already read after the consumer cancelled delivers none of them, and
// the message completes as cancelled with the content delivered so far,
// not as the wire ends it. A deadline that passes the same way ends it
// with stop reason error and the timeout.
func TestAssemblerEventsInHandAfterCancel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		at      int // the event (1-based) after which the context ends
		timeout bool
		want    []canonical.EventType
		stop    canonical.StopReason
		content canonical.Blocks
	}{
		{"cancel after the first text delta", 2, false,
			[]canonical.EventType{canonical.EventMessageStart, canonical.EventTextDelta, canonical.EventMessageComplete},
			canonical.StopCancelled, canonical.Blocks{canonical.TextBlock{Text: "Reading"}}},
		{"cancel after the first input fragment", 5, false,
			[]canonical.EventType{canonical.EventMessageStart, canonical.EventTextDelta, canonical.EventTextDelta,
				canonical.EventToolUseStart, canonical.EventToolUseInput, canonical.EventToolUseEnd, canonical.EventMessageComplete},
			canonical.StopCancelled, canonical.Blocks{canonical.TextBlock{Text: "Reading it."}, canonical.ToolUseBlock{Name: "read_file", Input: json.RawMessage(`{}`)}}},
		{"deadline after the first text delta", 2, true,
			[]canonical.EventType{canonical.EventMessageStart, canonical.EventTextDelta, canonical.EventMessageComplete},
			canonical.StopError, canonical.Blocks{canonical.TextBlock{Text: "Reading"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			end := cancel
			if tc.timeout {
				ctx, cancel = context.WithTimeout(ctx, 10*time.Millisecond)
				defer cancel()
				end = func() { <-ctx.Done() } // the deadline passes
			}
			var evs []canonical.StreamEvent
			var errs []error
			a, _ := newTestAssembler(nil)
			a.yield = func(ev canonical.StreamEvent, err error) bool {
				if err != nil {
					errs = append(errs, err)
					return true
				}
				evs = append(evs, ev)
				if len(evs) == tc.at {
					end()
				}
				return true
			}
			a.ctx = ctx
			inHandDecoder(a)

			var got []canonical.EventType
			for _, ev := range evs {
				got = append(got, ev.Type)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			resp := evs[len(evs)-1].Response
			if resp.StopReason != tc.stop {
				t.Errorf("stop reason %q, want %q", resp.StopReason, tc.stop)
			}
			if diff := cmp.Diff(tc.content, resp.Content, ignoreToolIDs); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			switch {
			case tc.timeout && (len(errs) != 1 || canonical.CodeOf(errs[0]) != canonical.CodeTimeout):
				t.Errorf("errors %v, want one network/timeout error", errs)
			case !tc.timeout && len(errs) > 0:
				t.Errorf("errors %v, want none: a cancelled stream yields no error", errs)
			}
		})
	}
}

// ignoreToolIDs compares tool_use blocks without their generated ids.
var ignoreToolIDs = cmp.Transformer("noID", func(b canonical.ToolUseBlock) canonical.ToolUseBlock {
	b.ID = ""
	return b
})
