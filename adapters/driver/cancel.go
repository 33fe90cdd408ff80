package driver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
)

// Cancels tracks in-flight calls by request id so Adapter.Cancel can abort
// them. The zero value is ready to use.
type Cancels struct {
	// Clock, when it is an adapters.TimerClock, runs the whole-call
	// timeout: it cancels the call with the cause
	// context.DeadlineExceeded (see timedOut). Otherwise the timeout is
	// the context's own deadline (context.WithTimeout).
	Clock adapters.Clock

	mu sync.Mutex
	m  map[string]*tracked
}

// tracked is one registered call; its address tells a finished call's
// release from a newer call registered under the same id.
type tracked struct{ cancel context.CancelCauseFunc }

// Track derives the call's context from ctx, bounded by timeout when it is
// positive, and registers it under requestID. The returned func releases
// the context and must be called when the call ends. A second call
// tracked under the same id replaces the first in the registry.
func (c *Cancels) Track(ctx context.Context, requestID string, timeout time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stopTimeout := func() {}
	if tc, ok := c.Clock.(adapters.TimerClock); ok && timeout > 0 {
		t := tc.AfterFunc(timeout, func() { cancel(context.DeadlineExceeded) })
		stopTimeout = func() { t.Stop() }
	} else if timeout > 0 {
		var cancelTimeout context.CancelFunc
		ctx, cancelTimeout = context.WithTimeout(ctx, timeout)
		stopTimeout = cancelTimeout
	}
	entry := &tracked{cancel: cancel}
	if requestID != "" {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*tracked{}
		}
		c.m[requestID] = entry
		c.mu.Unlock()
	}
	return ctx, func() {
		if requestID != "" {
			c.mu.Lock()
			if c.m[requestID] == entry {
				delete(c.m, requestID)
			}
			c.mu.Unlock()
		}
		stopTimeout()
		cancel(nil)
	}
}

// Cancel aborts the call registered under requestID and reports whether
// one was found. It is idempotent: a second call finds nothing.
func (c *Cancels) Cancel(requestID string) bool {
	c.mu.Lock()
	entry, ok := c.m[requestID]
	delete(c.m, requestID)
	c.mu.Unlock()
	if ok {
		entry.cancel(errCancelled)
	}
	return ok
}

// Len reports how many calls are in flight.
func (c *Cancels) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// timedOut reports whether ctx ended on a deadline: its own, a parent's
// (whatever its cause), or the whole-call timeout of a TimerClock
// (Cancels.Clock), which cancels with the cause context.DeadlineExceeded.
func timedOut(ctx context.Context) bool {
	err := ctx.Err()
	return err == context.DeadlineExceeded || err != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}
