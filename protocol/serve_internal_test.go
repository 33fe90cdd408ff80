package protocol

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
)

// A call that ends after a newer call of the same request id started (a
// wrapper retrying the request as soon as the first failed) leaves the
// newer call's route alone: its attempt lines still go out under its id.
func TestEndKeepsANewerCallsRoute(t *testing.T) {
	var out bytes.Buffer
	s := &server{w: NewWriter(&out), version: V2, calls: map[string]*serverCall{}, byRequest: map[string]string{}}
	first := s.start(context.Background(), "1", "req_1")
	second := s.start(context.Background(), "2", "req_1")
	s.end(first, "req_1")

	s.onAttempt(adapters.Attempt{RequestID: "req_1", N: 1, Status: 200})
	line := out.String()
	if !strings.Contains(line, `"type":"attempt"`) || !strings.Contains(line, `"id":"2"`) {
		t.Fatalf("after the first call ended, an attempt of the second wrote %q, want an attempt line for call 2", line)
	}

	s.end(second, "req_1")
	if id, ok := s.byRequest["req_1"]; ok {
		t.Errorf("after both calls ended, req_1 still routes to call %q", id)
	}
}

// lineWriter records the lines written to it and calls onWrite after
// each.
type lineWriter struct {
	lines   []string
	onWrite func()
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.lines = append(w.lines, string(p))
	if w.onWrite != nil {
		w.onWrite()
	}
	return len(p), nil
}

// A call whose cancel has come (taken while the call waited for
// nothing) does not ask metis for a sleep: Sleep returns at once, and no
// sleep line waits for an answer. (Were one written, metis's input
// ending releases the wait, so the test fails instead of hanging.)
func TestSleepOfACancelledCallDoesNotAsk(t *testing.T) {
	w := &lineWriter{}
	s := &server{w: NewWriter(w), version: V2, calls: map[string]*serverCall{}, byRequest: map[string]string{}, done: make(chan struct{})}
	w.onWrite = func() { close(s.done) }
	call := s.start(context.Background(), "1", "req_1")
	s.answer(&Message{Type: TypeCancel, ID: "1"})
	err := protocolClock{s}.Sleep(call.ctx, time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep of a cancelled call: %v, want context.Canceled", err)
	}
	if len(w.lines) != 0 {
		t.Errorf("Sleep of a cancelled call wrote %q, want nothing", w.lines)
	}
}
