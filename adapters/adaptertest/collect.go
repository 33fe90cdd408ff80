package adaptertest

import (
	"iter"

	"github.com/metis-llm/metis/canonical"
)

// Collect drains a stream such as Adapter.Stream returns, to its end: it
// returns the events in order and the first error the stream yielded
// (nil when none).
func Collect(seq iter.Seq2[canonical.StreamEvent, error]) ([]canonical.StreamEvent, error) {
	var evs []canonical.StreamEvent
	var first error
	for ev, err := range seq {
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		evs = append(evs, ev)
	}
	return evs, first
}

// EventsOf returns the events of type typ, in order.
func EventsOf(evs []canonical.StreamEvent, typ canonical.EventType) []canonical.StreamEvent {
	var out []canonical.StreamEvent
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}
