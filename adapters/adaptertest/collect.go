package adaptertest

import (
	"iter"
	"net/http"
	"strings"
	"testing"

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

// Final returns the response that a stream's last event, its
// message.complete, carries, failing tb when the stream did not end
// with one.
func Final(tb testing.TB, evs []canonical.StreamEvent) *canonical.Response {
	tb.Helper()
	if len(evs) == 0 {
		tb.Fatal("the stream has no event")
	}
	last := evs[len(evs)-1]
	if last.Type != canonical.EventMessageComplete || last.Response == nil {
		tb.Fatalf("the stream ends with %s, not message.complete with a response", last.Type)
	}
	return last.Response
}

// BearerToken returns the token of h's "Authorization: Bearer" header,
// failing tb when there is none. (Tests compare tokens, not header
// values, so that no credential-shaped string sits in their source.)
func BearerToken(tb testing.TB, h http.Header) string {
	tb.Helper()
	tok, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	if !ok {
		tb.Fatalf("Authorization %q is not a bearer token", h.Get("Authorization"))
	}
	return tok
}
