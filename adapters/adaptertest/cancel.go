package adaptertest

import (
	"fmt"
	"iter"
	"testing"

	"github.com/metis-llm/metis/canonical"
)

// CancelAt drains a stream, calling cancel (Adapter.Cancel, or the
// context's cancel func) once, when the first event of type at arrives,
// and checks what 000 §5.3 allows after it: only the closing of blocks
// left open (tool.use_end, a thinking block's signature) and one
// message.complete, last, with stop reason cancelled; no error. It returns
// every event and the final response. Against a server that writes the
// whole stream at once it shows that a cancel is honoured between events
// already read, not only between reads.
func CancelAt(tb testing.TB, seq iter.Seq2[canonical.StreamEvent, error], at canonical.EventType, cancel func()) ([]canonical.StreamEvent, *canonical.Response) {
	tb.Helper()
	var evs []canonical.StreamEvent
	cut := -1
	for ev, err := range seq {
		if err != nil {
			tb.Errorf("after %d events: error %v; a cancelled stream yields none", len(evs), err)
			continue
		}
		evs = append(evs, ev)
		if cut < 0 && ev.Type == at {
			cut = len(evs)
			cancel()
		}
	}
	if cut < 0 {
		tb.Fatalf("no %s event in %d events: nothing was cancelled", at, len(evs))
	}
	var resp *canonical.Response
	for i, ev := range evs[cut:] {
		if p := afterCancel(ev, cut+i == len(evs)-1); p != "" {
			tb.Errorf("event %d (%s), after the cancel at event %d (%s): %s", cut+i+1, ev.Type, cut, at, p)
		}
		if ev.Type == canonical.EventMessageComplete {
			resp = ev.Response
		}
	}
	if resp == nil {
		tb.Fatalf("no message.complete after the cancel at event %d (%s)", cut, at)
	}
	return evs, resp
}

// afterCancel says what is wrong with ev coming after a cancel, "" if
// nothing.
func afterCancel(ev canonical.StreamEvent, last bool) string {
	switch {
	case ev.Type == canonical.EventMessageComplete && !last:
		return "message.complete is not the last event"
	case ev.Type == canonical.EventMessageComplete && ev.Response == nil:
		return "message.complete without a response"
	case ev.Type == canonical.EventMessageComplete && ev.Response.StopReason != canonical.StopCancelled:
		return fmt.Sprintf("stop reason %q, want %q", ev.Response.StopReason, canonical.StopCancelled)
	case ev.Type == canonical.EventMessageComplete, ev.Type == canonical.EventToolUseEnd:
		return ""
	case ev.Type == canonical.EventThinkingDelta && ev.Text == "" && ev.Signature != "":
		return ""
	}
	return "decoded and delivered after the cancel"
}
