package harness

import (
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metis-llm/metis/harness/check"
)

func TestLogCaptureFlattensGroupsAndAttrs(t *testing.T) {
	c := newLogCapture(slog.New(slog.DiscardHandler))
	c.setStep(3)
	log := c.logger().With("adapter", "openai").WithGroup("req")
	log.Warn("dropped", "id", "r1", slog.Group("block", "type", "thinking"))
	recs := c.forStep(3)
	want := []check.LogRecord{{Step: 3, Level: slog.LevelWarn, Message: "dropped",
		Attrs: map[string]string{"adapter": "openai", "req.id": "r1", "req.block.type": "thinking"}}}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Fatalf("records (-want +got):\n%s", diff)
	}
	if got := c.forStep(2); len(got) != 0 {
		t.Fatalf("step 2 has %d records, want none", len(got))
	}
}
