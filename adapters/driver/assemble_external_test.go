package driver_test

import (
	"context"
	"testing"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// A shim outside the driver decodes a wire stream into an Assembler
// under a context of its own: once the shim cancels it, no further event
// is delivered, though the decoder keeps feeding deltas it has in hand,
// and Fail completes the message as cancelled.
func TestAssemblerSetContextFromOutside(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var events []canonical.StreamEvent
	var errs []error
	asm := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		events = append(events, ev)
		return true
	}, "shim", "m", "req_1", nil)
	asm.SetContext(ctx)
	asm.Start()
	asm.TextDelta(0, "Hello")
	cancel() // the shim's caller cancels mid-stream
	if asm.TextDelta(0, ", world") {
		t.Error("TextDelta after the cancel reported the event delivered")
	}
	asm.Fail(ctx, ctx.Err())
	var types []canonical.EventType
	for _, ev := range events {
		types = append(types, ev.Type)
		if ev.Type == canonical.EventTextDelta && ev.Text != "Hello" {
			t.Errorf("delta %q delivered after the cancel", ev.Text)
		}
	}
	if len(events) == 0 || events[len(events)-1].Type != canonical.EventMessageComplete {
		t.Fatalf("events %v, want message.complete last", types)
	}
	resp := events[len(events)-1].Response
	if resp == nil || resp.StopReason != canonical.StopCancelled {
		t.Errorf("final response %+v, want stop_reason cancelled", resp)
	}
	if len(errs) != 0 {
		t.Errorf("errors %v after a cancellation, want none (000 §5.3)", errs)
	}
}

// Without SetContext the Assembler does not look at any context: every
// event reaches the consumer.
func TestAssemblerWithoutContextDelivers(t *testing.T) {
	var text string
	asm := driver.NewAssembler(func(ev canonical.StreamEvent, _ error) bool { text += ev.Text; return true }, "shim", "m", "req_1", nil)
	asm.Start()
	if !asm.TextDelta(0, "a") || !asm.TextDelta(0, "b") {
		t.Error("a delta was not delivered")
	}
	if text != "ab" {
		t.Errorf("delivered text %q, want ab", text)
	}
}
