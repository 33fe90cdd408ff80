package adaptertest

import (
	"context"
	"sync"
	"time"
)

// Clock is a fake adapters.Clock: Sleep records the duration and returns
// at once (with the context's error, if any), and Now stays where it was
// set. It is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// NewClock returns a Clock whose Now is now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the time the clock was created with.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d without waiting and returns ctx.Err().
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

// Sleeps returns a copy of the durations passed to Sleep, in order.
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// Jitter is 0, so that the driver's retry backoff is exact under this
// Clock (the driver reads a Clock's Jitter method when it has one).
func (c *Clock) Jitter() float64 { return 0 }
