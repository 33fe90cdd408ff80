package harness

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
)

// clockBase is the instant every run starts at, so that created_at and
// Retry-After dates are the same on every run.
var clockBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeClock is the adapters' Clock in a run: Sleep returns at once,
// advancing the time and recording the wait, so retry backoff never
// waits. Tick gives the session's timestamps, one second apart and
// independent of the sleeps: goldens stay byte-stable even when a run
// retries. Jitter gives the backoff jitter of the adapters that take it
// from their Clock (adapters.Clock) from a source seeded the same for
// every run, so a run's recorded waits, and the reports that show them,
// are the same on every run of it (when its calls retry one at a time).
//
// It is also an adapters.TimerClock: the adapters' idle and whole-call
// timeouts are its timers. When a stall fault holds a request (stall, the
// run's faults.OnStall hook), the clock moves to its pending timers in
// the order they are due, firing each, until the stalled request's
// context is done: the stall ends through the timeout that a silent
// server would have run into, at once and the same way on every run,
// instead of after seconds of real time. With realTime (Config.
// RealTimeTimers), a timer no stall fired also fires once d of real time
// has passed, as a real one does: a stall the run cannot see (in a replay
// server an adapter reaches over HTTP, as certify's over-HTTP and --exec
// modes do) ends as it would without the fake clock. Without it no timer
// reads the wall clock: a loaded machine cannot fire an idle timeout
// between two events of a stream.
type fakeClock struct {
	realTime bool

	mu     sync.Mutex
	now    time.Time
	ticks  int
	sleeps []time.Duration
	jitter *rand.Rand // seeded alike on every clock: see Jitter
	// onSleep, when set, is called as a sleep begins (a cancel step's
	// during_backoff cancels the call there).
	onSleep func()

	timers    []*fakeTimer // pending, in the order armed
	stalls    []*stalled   // requests a stall holds
	advancing bool         // a goroutine is in advance
}

// fakeTimer is a timer on a fakeClock.
type fakeTimer struct {
	c       *fakeClock
	f       func()
	when    time.Time // on the fake clock
	pending bool
	// real, on a clock with realTime, fires f once d of real time has
	// passed since the last Reset (realWhen), unless a stall fired it
	// first or it was stopped.
	real     *time.Timer
	realWhen time.Time
}

// stalled is a request a stall fault holds.
type stalled struct{ ctx context.Context }

// AfterFunc returns a timer that calls f once the clock has moved d past
// now (see fakeClock). f runs on the goroutine that moves the clock.
func (c *fakeClock) AfterFunc(d time.Duration, f func()) adapters.Timer {
	t := &fakeTimer{c: c, f: f}
	t.Reset(d)
	return t
}

// Reset makes t due d from now. Armed while a stall holds a request, it
// fires at once if it is the next due: nothing else is going to happen.
func (t *fakeTimer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	was := t.pending
	if was {
		c.timers = slices.DeleteFunc(c.timers, func(u *fakeTimer) bool { return u == t })
	}
	t.when, t.pending = c.now.Add(d), true
	c.timers = append(c.timers, t)
	if c.realTime {
		t.realWhen = time.Now().Add(d)
		if t.real == nil {
			t.real = time.AfterFunc(d, t.fireReal)
		} else {
			t.real.Reset(d)
		}
	}
	stalled := len(c.stalls) > 0
	c.mu.Unlock()
	if stalled {
		c.advance()
	}
	return was
}

// fireReal fires t when d of real time has passed since its last Reset
// and it is still pending: neither stopped nor fired by a stall (a stale
// call, from before a Reset, finds it not yet due).
func (t *fakeTimer) fireReal() {
	c := t.c
	c.mu.Lock()
	if !t.pending || time.Now().Before(t.realWhen) {
		c.mu.Unlock()
		return
	}
	t.pending = false
	c.timers = slices.DeleteFunc(c.timers, func(u *fakeTimer) bool { return u == t })
	c.mu.Unlock()
	t.f()
}

// Stop keeps t from firing.
func (t *fakeTimer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.pending {
		return false
	}
	t.pending = false
	t.stopReal()
	c.timers = slices.DeleteFunc(c.timers, func(u *fakeTimer) bool { return u == t })
	return true
}

// stopReal stops t's real-time timer, if it has one.
func (t *fakeTimer) stopReal() {
	if t.real != nil {
		t.real.Stop()
	}
}

// stall is the run's faults.OnStall hook: a stall holds the request of
// ctx, so the clock moves on to the timers that end it.
func (c *fakeClock) stall(ctx context.Context) func() {
	s := &stalled{ctx: ctx}
	c.mu.Lock()
	c.stalls = append(c.stalls, s)
	c.mu.Unlock()
	c.advance()
	return func() {
		c.mu.Lock()
		c.stalls = slices.DeleteFunc(c.stalls, func(u *stalled) bool { return u == s })
		c.mu.Unlock()
	}
}

// advance fires the pending timers in the order they are due (of two due
// at once, the one armed first), moving the clock to each, for as long as
// a stalled request's context is not done. One goroutine advances at a
// time; another that arms a timer or begins a stall meanwhile leaves it
// to that one, which sees the change before it stops.
func (c *fakeClock) advance() {
	c.mu.Lock()
	if c.advancing {
		c.mu.Unlock()
		return
	}
	c.advancing = true
	for {
		c.stalls = slices.DeleteFunc(c.stalls, func(s *stalled) bool { return s.ctx.Err() != nil })
		if len(c.stalls) == 0 || len(c.timers) == 0 {
			c.advancing = false
			c.mu.Unlock()
			return
		}
		next := 0
		for i, t := range c.timers {
			if t.when.Before(c.timers[next].when) {
				next = i
			}
		}
		t := c.timers[next]
		c.timers = slices.Delete(c.timers, next, next+1)
		t.pending = false
		t.stopReal()
		if t.when.After(c.now) {
			c.now = t.when
		}
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
}

// newFakeClock returns a clock at clockBase; realTime: see fakeClock.
func newFakeClock(realTime bool) *fakeClock {
	return &fakeClock{realTime: realTime, now: clockBase, jitter: rand.New(rand.NewPCG(jitterSeed, jitterSeed))}
}

// jitterSeed seeds every run clock's jitter source: any fixed value
// serves, one that is not zero reads as chosen.
const jitterSeed = 0x6d65746973 // "metis"

// Jitter returns the next number in [0,1) of the clock's jitter source,
// the same sequence on every clock (see fakeClock).
func (c *fakeClock) Jitter() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.jitter.Float64()
}

// Now returns the clock's time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Tick advances the clock by a second and returns the next session
// timestamp: clockBase plus one second per tick so far.
func (c *fakeClock) Tick() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	c.ticks++
	return clockBase.Add(time.Duration(c.ticks) * time.Second)
}

// Sleep records d and advances the clock by it, failing only if ctx is
// done (before the sleep, or by the onSleep hook).
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	hook := c.onSleep
	c.mu.Unlock()
	if hook != nil {
		hook()
		c.mu.Lock()
		c.sleeps = append(c.sleeps, d)
		c.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if hook != nil {
		c.now = c.now.Add(d)
		return nil
	}
	c.sleeps = append(c.sleeps, d)
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return nil
}

// Sleeps returns the recorded waits.
func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// setOnSleep sets (or, with nil, clears) the sleep hook.
func (c *fakeClock) setOnSleep(f func()) {
	c.mu.Lock()
	c.onSleep = f
	c.mu.Unlock()
}
