package replay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// NewBody returns a response body over data that selects on ctx: each Read
// returns at most what is left of the current chunk, waits pace before
// each chunk after the first, and fails with ctx's error once ctx is done.
// With eventStream, the chunks are data's server-sent events (SplitEvents);
// otherwise data is one chunk.
func NewBody(ctx context.Context, data []byte, eventStream bool, pace time.Duration) io.ReadCloser {
	return newEventBody(ctx, data, eventStream, pace)
}

// Resplit wraps next so that every text/event-stream response is read
// whole and handed out again one event per Read, honouring the request's
// context, as a Player does. Put it in front of a transport whose bodies
// arrive in one piece — go-vcr's recorder, a loopback emulator — so that a
// consumer cancelling mid-stream stops where it would on the wire. Only
// WithPacing applies among the options.
func Resplit(next http.RoundTripper, opts ...Option) http.RoundTripper {
	p := &Player{}
	for _, o := range opts {
		o.apply(p)
	}
	return resplit{next: next, pace: p.pace}
}

type resplit struct {
	next http.RoundTripper
	pace time.Duration
}

func (r resplit) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || !isEventStream(resp.Header.Get("Content-Type")) {
		return resp, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("replay: reading event stream: %w", err)
	}
	resp.Body = NewBody(req.Context(), data, true, r.pace)
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}
