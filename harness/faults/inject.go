package faults

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"
)

// Injector is an http.RoundTripper that applies its faults to consecutive
// attempts and sends every other request to the next transport. It is
// safe for concurrent use.
type Injector struct {
	next   http.RoundTripper
	faults []Fault

	// Sleep, when set, makes the pause between a drip fault's pieces; it
	// returns early with the context's error. Nil (the default) means no
	// pause at all, so that tests never sleep.
	Sleep func(ctx context.Context, d time.Duration) error

	mu       sync.Mutex
	left     []int
	attempts int
	injected int
}

// Transport returns an Injector applying faults in order, each to as many
// attempts as its Times, in front of next (http.DefaultTransport when
// nil).
func Transport(next http.RoundTripper, f ...Fault) *Injector {
	if next == nil {
		next = http.DefaultTransport
	}
	in := &Injector{next: next, faults: append([]Fault(nil), f...), left: make([]int, len(f))}
	for i := range in.faults {
		in.left[i] = in.faults[i].times()
	}
	return in
}

// FromSpec parses spec (one fault, or a sequence) and returns an Injector
// in front of next. It has the signature of harness.Config.Faults.
func FromSpec(spec map[string]any, next http.RoundTripper) (http.RoundTripper, error) {
	fs, err := ParseAll(spec)
	if err != nil {
		return nil, err
	}
	return Transport(next, fs...), nil
}

// Attempts is how many requests the Injector has seen.
func (in *Injector) Attempts() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.attempts
}

// Injected is how many of them a fault was applied to.
func (in *Injector) Injected() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.injected
}

// Remaining is how many more attempts will be faulted.
func (in *Injector) Remaining() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, l := range in.left {
		n += l
	}
	return n
}

// RoundTrip applies the first fault with attempts left to req, or sends
// req to the next transport when none is left.
func (in *Injector) RoundTrip(req *http.Request) (*http.Response, error) {
	in.mu.Lock()
	in.attempts++
	var f *Fault
	for i := range in.faults {
		if in.left[i] > 0 {
			in.left[i]--
			in.injected++
			f = &in.faults[i]
			break
		}
	}
	in.mu.Unlock()
	if f == nil {
		return in.next.RoundTrip(req)
	}

	switch {
	case f.Kind == KindStatus:
		closeBody(req)
		return statusResponse(req, f), nil
	case f.Kind == KindBody:
		closeBody(req)
		return bodyResponse(req, f), nil
	case f.Kind == KindReset && f.AfterEvents < 0:
		closeBody(req)
		return nil, resetError()
	case f.Kind == KindStall && f.AfterEvents < 0:
		closeBody(req)
		return nil, stall(req.Context(), nil)
	}

	resp, err := in.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	eventStream := isEventStream(ct) || isNDJSON(ct)
	if !eventStream && (f.Kind == KindErrorEvent || f.Kind == KindMalformed) {
		resp.Body.Close()
		return nil, fmt.Errorf("faults: %s needs an event-stream response (text/event-stream, application/vnd.amazon.eventstream or application/x-ndjson), but %s %s answered %q",
			f.Kind, req.Method, req.URL.Path, resp.Header.Get("Content-Type"))
	}
	out := *resp
	out.Header = resp.Header.Clone()
	out.Header.Del("Content-Length")
	out.ContentLength = -1
	switch f.Kind {
	case KindDrip:
		out.Body = &dripBody{ctx: req.Context(), src: resp.Body, chunk: max(f.ChunkBytes, 1), delay: f.Delay, sleep: in.Sleep}
	case KindBurst:
		out.Body = &burstBody{ctx: req.Context(), src: resp.Body}
	default:
		out.Body = newStreamBody(req.Context(), resp.Body, f, APIOf(req.URL), eventStream)
		switch {
		case isAWSEventStream(ct):
			out.Body.(*streamBody).next = newFrameSplitter(resp.Body).next
		case isNDJSON(ct):
			out.Body.(*streamBody).next = newLineSplitter(resp.Body).next
		}
	}
	return &out, nil
}

// resetError is what a socket read returns when the peer resets the
// connection.
func resetError() error {
	return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// closeBody closes a request body the fault will not send, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body) //nolint:errcheck // discarded anyway
		req.Body.Close()
	}
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "text/event-stream" || mt == awsEventStream)
}

// awsEventStream is Bedrock's binary event stream, whose events are
// length-prefixed frames rather than server-sent events.
const awsEventStream = "application/vnd.amazon.eventstream"

func isAWSEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == awsEventStream
}

var _ http.RoundTripper = (*Injector)(nil)
