package harness

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// firings records which timers fired, in order, and at what time of the
// clock.
type firings struct {
	mu  sync.Mutex
	c   *fakeClock
	got []string
}

func (f *firings) timer(name string) func() {
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.got = append(f.got, name+"@"+f.c.Now().Sub(clockBase).String())
	}
}

func (f *firings) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

// TestFakeClockTimers: the run clock's timers fire only while a stall
// holds a request, in the order they are due, moving the clock to each,
// until the stalled request's context is done; a stopped timer never
// fires, a reset one is due d after the reset.
func TestFakeClockTimers(t *testing.T) {
	c := newFakeClock(false)
	f := &firings{c: c}
	idle := c.AfterFunc(time.Second, f.timer("idle"))
	c.AfterFunc(2*time.Second, f.timer("call"))
	stopped := c.AfterFunc(time.Millisecond, f.timer("stopped"))
	if !stopped.Stop() {
		t.Error("Stop of a pending timer reported false")
	}
	if stopped.Stop() {
		t.Error("second Stop reported true")
	}
	if len(f.list()) != 0 {
		t.Fatalf("timers fired without a stall: %v", f.list())
	}
	c.Sleep(context.Background(), 500*time.Millisecond) //nolint:errcheck // never fails
	if !idle.Reset(time.Second) {                       // now due at 1.5s
		t.Error("Reset of a pending timer reported false")
	}

	// A stall whose context the second timer ends: both fire, in order.
	ctx, cancel := context.WithCancel(context.Background())
	c.AfterFunc(3*time.Second, func() { cancel() })
	end := c.stall(ctx)
	end()
	want := []string{"idle@1.5s", "call@2s"}
	if diff := cmp.Diff(want, f.list()); diff != "" {
		t.Errorf("firings (-want +got):\n%s", diff)
	}
	if got := c.Now().Sub(clockBase); got != 3500*time.Millisecond {
		t.Errorf("clock at %s after the stall, want 3.5s (the timer that ended it)", got)
	}

	// No stall: a new timer waits.
	late := c.AfterFunc(time.Second, f.timer("late"))
	if len(f.list()) != 2 {
		t.Fatalf("a timer fired without a stall: %v", f.list())
	}
	late.Stop()
}

// TestFakeClockStallBeforeTimer: a stall that begins before the timer
// that ends it is armed (no timer pending yet) ends as soon as it is
// armed.
func TestFakeClockStallBeforeTimer(t *testing.T) {
	c := newFakeClock(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	end := c.stall(ctx)
	defer end()
	if ctx.Err() != nil {
		t.Fatal("the stall ended with no timer pending")
	}
	c.AfterFunc(time.Minute, cancel)
	if ctx.Err() == nil {
		t.Fatal("a timer armed during a stall did not fire")
	}
	if got := c.Now().Sub(clockBase); got != time.Minute {
		t.Errorf("clock at %s, want 1m", got)
	}
}

// TestFakeClockConcurrentStalls: stalls and timers from several
// goroutines (go test -race) each end through their own timer.
func TestFakeClockConcurrentStalls(t *testing.T) {
	c := newFakeClock(false)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				ctx, cancel := context.WithCancel(context.Background())
				tm := c.AfterFunc(time.Duration(i+1)*time.Second, cancel)
				end := c.stall(ctx)
				<-ctx.Done()
				end()
				tm.Stop()
			}
		})
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) != 0 || len(c.stalls) != 0 || c.advancing {
		t.Errorf("left behind: %d timers, %d stalls, advancing %v", len(c.timers), len(c.stalls), c.advancing)
	}
}

// TestFakeClockRealTime: with realTime, a timer no stall fires still
// fires once its duration has passed in real time (a stall in a server
// the run cannot see), once; one a stall fired does not fire again, even
// when its real-time timer comes late.
func TestFakeClockRealTime(t *testing.T) {
	c := newFakeClock(true)
	fired := make(chan string, 4)
	c.AfterFunc(20*time.Millisecond, func() { fired <- "real" })
	if got := <-fired; got != "real" { // the test's own timeout is the limit
		t.Fatalf("fired %q", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	tm := c.AfterFunc(time.Hour, func() { fired <- "stall"; cancel() }).(*fakeTimer)
	c.stall(ctx)()
	if got := <-fired; got != "stall" {
		t.Fatalf("fired %q, want stall", got)
	}
	// Its real-time timer, had it not been stopped, arriving after the
	// hour of real time.
	c.mu.Lock()
	tm.realWhen = time.Now().Add(-time.Second)
	c.mu.Unlock()
	tm.fireReal()
	if got := len(fired); got != 0 {
		t.Fatalf("%d more firings after the stall's", got)
	}
}

// TestFakeClockVirtualOnly: without realTime no timer reads the wall
// clock: it fires only when a stall moves the clock to it.
func TestFakeClockVirtualOnly(t *testing.T) {
	c := newFakeClock(false)
	fired := make(chan string, 1)
	tm := c.AfterFunc(time.Nanosecond, func() { fired <- "idle" }).(*fakeTimer)
	tm.Reset(time.Nanosecond)
	if tm.real != nil {
		t.Fatal("a timer of a virtual-only clock has a real-time timer")
	}
	if got := len(fired); got != 0 {
		t.Fatalf("fired %d times without a stall", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.AfterFunc(time.Second, cancel)
	c.stall(ctx)()
	if got := len(fired); got != 1 {
		t.Fatalf("fired %d times in a stall, want 1", got)
	}
	if got, want := c.Now(), clockBase.Add(time.Second); !got.Equal(want) {
		t.Errorf("clock after the stall = %v, want %v", got, want)
	}
}
