package driver

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// stepClock is an adapters.TimerClock whose timers fire only when told
// (fireNext), in the order they are due.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*stepTimer
	armed  []time.Duration // every AfterFunc's and Reset's d, in order
}

type stepTimer struct {
	c       *stepClock
	f       func()
	when    time.Time
	pending bool
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

func (c *stepClock) AfterFunc(d time.Duration, f func()) adapters.Timer {
	t := &stepTimer{c: c, f: f}
	t.Reset(d)
	return t
}

func (t *stepTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.pending
	if !was {
		t.c.timers = append(t.c.timers, t)
	}
	t.when, t.pending = t.c.now.Add(d), true
	t.c.armed = append(t.c.armed, d)
	return was
}

func (t *stepTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.pending
	t.pending = false
	t.c.timers = slices.DeleteFunc(t.c.timers, func(u *stepTimer) bool { return u == t })
	return was
}

// fireNext moves the clock to the earliest pending timer and fires it.
func (c *stepClock) fireNext() {
	c.mu.Lock()
	if len(c.timers) == 0 {
		c.mu.Unlock()
		return
	}
	next := slices.MinFunc(c.timers, func(a, b *stepTimer) int { return a.when.Compare(b.when) })
	c.timers = slices.DeleteFunc(c.timers, func(u *stepTimer) bool { return u == next })
	next.pending = false
	c.now = next.when
	c.mu.Unlock()
	next.f()
}

// stallingBody hands out body, then stalls: it fires the clock's next
// timer and waits for ctx, as a silent server's connection would.
type stallingBody struct {
	ctx   context.Context
	clock *stepClock
	body  *strings.Reader
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if b.body.Len() > 0 {
		return b.body.Read(p)
	}
	b.clock.fireNext()
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (b *stallingBody) Close() error { return nil }

// TestTimeoutsOnTimerClock: with a Config.Clock that is a TimerClock, the
// idle timeout and the whole-call timeout are its timers, and a call they
// end fails as on the real clock: network/timeout, the idle timeout's
// message naming it, the content streamed so far kept, never cancelled.
func TestTimeoutsOnTimerClock(t *testing.T) {
	const idle, whole = time.Minute, time.Hour
	for _, tt := range []struct {
		name    string
		stream  bool
		headers bool   // the response headers arrive
		body    string // before the stall
		want    string // in the error's message
		text    string // the text of message.complete ("" none)
		armed   []time.Duration
	}{
		{name: "stream stalled before the headers", stream: true, want: "idle timeout",
			armed: []time.Duration{whole, idle}},
		{name: "stream stalled mid-stream", stream: true, headers: true, body: sse(evText), want: "idle timeout", text: "Hello",
			armed: []time.Duration{whole, idle, idle}},
		{name: "complete stalled before the headers", want: "timed out",
			armed: []time.Duration{whole}},
		{name: "complete stalled in its body", headers: true, body: `{"t":`, want: "idle timeout",
			armed: []time.Duration{whole, idle, idle}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard: the test never waits for it
			defer cancel()
			clock := &stepClock{}
			client := &http.Client{Transport: timerRoundTrip(func(req *http.Request) (*http.Response, error) {
				if !tt.headers {
					clock.fireNext()
					<-req.Context().Done()
					return nil, req.Context().Err()
				}
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: req,
					Body: &stallingBody{ctx: req.Context(), clock: clock, body: strings.NewReader(tt.body)}}, nil
			})}
			a := newFakeAdapter("http://fake.invalid/v1/fake", adapters.Config{
				Name: "fake", HTTPClient: client, Clock: clock, Timeout: whole,
				Options: map[string]any{"idle_timeout_seconds": idle.Seconds()},
			})
			req := testRequest()
			var err error
			var text string
			if tt.stream {
				events, errs := collect(a.Stream(ctx, req), nil)
				if len(errs) != 1 {
					t.Fatalf("errors %v, want one", errs)
				}
				err = errs[0]
				for _, ev := range events {
					if ev.Type == canonical.EventMessageComplete {
						if ev.Response.StopReason != canonical.StopError {
							t.Errorf("stop reason %s, want error", ev.Response.StopReason)
						}
						text = ev.Response.Content.Text()
					}
				}
			} else {
				req.Stream = false
				_, err = a.Complete(ctx, req)
			}
			if ctx.Err() != nil {
				t.Fatal("the guard's deadline ended the call, not the clock's timer")
			}
			if canonical.ClassOf(err) != canonical.ErrNetwork || canonical.CodeOf(err) != canonical.CodeTimeout || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want network/timeout with %q", err, tt.want)
			}
			if text != tt.text {
				t.Errorf("message.complete text %q, want %q", text, tt.text)
			}
			clock.mu.Lock()
			defer clock.mu.Unlock()
			if diff := cmp.Diff(tt.armed, clock.armed); diff != "" {
				t.Errorf("timers armed (-want +got):\n%s", diff)
			}
			if len(clock.timers) != 0 {
				t.Errorf("%d timers left pending after the call", len(clock.timers))
			}
		})
	}
}

// TestIdleTimerRearmAllocs: on the real clock, re-arming the idle timer
// (once per read that brings data) allocates nothing.
func TestIdleTimerRearmAllocs(t *testing.T) {
	_, w := watchIdle(context.Background(), time.Hour, nil)
	defer w.release()
	w.arm()
	if n := testing.AllocsPerRun(100, func() { w.arm(); w.pause() }); n != 0 {
		t.Errorf("%v allocations per re-arm, want 0", n)
	}
}

var _ io.ReadCloser = (*stallingBody)(nil)

type timerRoundTrip func(*http.Request) (*http.Response, error)

func (f timerRoundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
