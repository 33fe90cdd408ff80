package adaptertest

import (
	"testing"

	"github.com/metis-llm/metis/canonical"
)

// TestAfterCancel: after a cancel only the closing of open blocks and a
// last message.complete with stop reason cancelled may come.
func TestAfterCancel(t *testing.T) {
	cancelled := &canonical.Response{StopReason: canonical.StopCancelled}
	for _, tt := range []struct {
		name string
		ev   canonical.StreamEvent
		last bool
		want string
	}{
		{"tool.use_end", canonical.StreamEvent{Type: canonical.EventToolUseEnd}, false, ""},
		{"a thinking block's signature", canonical.StreamEvent{Type: canonical.EventThinkingDelta, Signature: "sig"}, false, ""},
		{"message.complete, cancelled, last", canonical.StreamEvent{Type: canonical.EventMessageComplete, Response: cancelled}, true, ""},
		{"a text delta", canonical.StreamEvent{Type: canonical.EventTextDelta, Text: "more"}, false, "decoded and delivered after the cancel"},
		{"thinking text", canonical.StreamEvent{Type: canonical.EventThinkingDelta, Text: "hmm", Signature: "sig"}, false, "decoded and delivered after the cancel"},
		{"usage.update", canonical.StreamEvent{Type: canonical.EventUsageUpdate}, false, "decoded and delivered after the cancel"},
		{"message.complete not last", canonical.StreamEvent{Type: canonical.EventMessageComplete, Response: cancelled}, false, "message.complete is not the last event"},
		{"message.complete, end_turn", canonical.StreamEvent{Type: canonical.EventMessageComplete, Response: &canonical.Response{StopReason: canonical.StopEndTurn}}, true, `stop reason "end_turn", want "cancelled"`},
		{"message.complete without a response", canonical.StreamEvent{Type: canonical.EventMessageComplete}, true, "message.complete without a response"},
	} {
		if got := afterCancel(tt.ev, tt.last); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
