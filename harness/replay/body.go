package replay

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// errClosed is returned by Read after Close, as net/http does.
var errClosed = errors.New("http: read on closed response body")

// eventBody hands out a response body one chunk (an SSE event, or the
// whole body) at a time, finding each event's end as it goes, without
// copying the body. Before each chunk it waits for the pacing delay or
// the request's context, whichever comes first; after the context is
// done every Read fails with its error, even in the middle of a chunk.
type eventBody[T ~string | ~[]byte] struct {
	ctx    context.Context
	data   T
	events bool // one SSE event per chunk (else the whole body is one)
	pace   time.Duration

	mu     sync.Mutex
	cur    T
	next   int // where the next chunk starts in data
	closed bool
	done   chan struct{} // closed by Close, to wake a paced wait
}

func newEventBody[T ~string | ~[]byte](ctx context.Context, data T, events bool, pace time.Duration) *eventBody[T] {
	return &eventBody[T]{ctx: ctx, data: data, events: events, pace: pace, done: make(chan struct{})}
}

// Read copies from the current chunk only, so a reader never receives two
// events in one call.
func (b *eventBody[T]) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errClosed
	}
	if len(b.cur) == 0 {
		if b.next == len(b.data) {
			return 0, io.EOF
		}
		if b.pace > 0 && b.next > 0 {
			b.mu.Unlock()
			err := b.wait()
			b.mu.Lock()
			if err != nil {
				return 0, err
			}
			if b.closed {
				return 0, errClosed
			}
		}
		end := len(b.data)
		if b.events {
			end = nextEvent(b.data, b.next)
		}
		b.cur, b.next = b.data[b.next:end], end
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

// wait blocks for the pacing delay, returning early with the context's
// error or errClosed.
func (b *eventBody[T]) wait() error {
	t := time.NewTimer(b.pace)
	defer t.Stop()
	select {
	case <-b.ctx.Done():
		return b.ctx.Err()
	case <-b.done:
		return errClosed
	case <-t.C:
		return nil
	}
}

// Close releases the body; later Reads fail. It is safe to call twice.
func (b *eventBody[T]) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
	return nil
}
