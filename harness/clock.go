package harness

import (
	"context"
	"sync"
	"time"
)

// clockBase is the instant every run starts at, so that created_at and
// Retry-After dates are the same on every run.
var clockBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeClock is the adapters' Clock in a run: Sleep returns at once,
// advancing the time and recording the wait, so retry backoff never
// waits. Tick gives the session's timestamps, one second apart and
// independent of the sleeps, whose backoff jitter is random: goldens stay
// byte-stable even when a run retries.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	ticks  int
	sleeps []time.Duration
	// onSleep, when set, is called as a sleep begins (a cancel step's
	// during_backoff cancels the call there).
	onSleep func()
}

func newFakeClock() *fakeClock { return &fakeClock{now: clockBase} }

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
