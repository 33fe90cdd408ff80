package protocol

import (
	"bytes"
	"context"
	"strings"
	"testing"

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
