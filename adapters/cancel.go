package adapters

import (
	"context"
	"sync"
	"time"
)

// Cancels tracks in-flight calls by request id so Adapter.Cancel can abort
// them. The zero value is ready to use.
type Cancels struct {
	mu sync.Mutex
	m  map[string]context.CancelCauseFunc
}

// Track derives the call's context from ctx, bounded by timeout when it is
// positive, and registers it under requestID. The returned func releases
// the context and must be called when the call ends.
func (c *Cancels) Track(ctx context.Context, requestID string, timeout time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stopTimeout := func() {}
	if timeout > 0 {
		var cancelTimeout context.CancelFunc
		ctx, cancelTimeout = context.WithTimeout(ctx, timeout)
		stopTimeout = cancelTimeout
	}
	if requestID != "" {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]context.CancelCauseFunc{}
		}
		c.m[requestID] = cancel
		c.mu.Unlock()
	}
	return ctx, func() {
		if requestID != "" {
			c.mu.Lock()
			delete(c.m, requestID)
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
	cancel, ok := c.m[requestID]
	delete(c.m, requestID)
	c.mu.Unlock()
	if ok {
		cancel(errCancelled)
	}
	return ok
}
