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
// whole body) at a time. Before each chunk it waits for the pacing delay
// or the request's context, whichever comes first; after the context is
// done every Read fails with its error, even in the middle of a chunk.
type eventBody struct {
	ctx    context.Context
	chunks [][]byte
	pace   time.Duration

	mu     sync.Mutex
	cur    []byte
	next   int
	closed bool
	done   chan struct{} // closed by Close, to wake a paced wait
}

func newEventBody(ctx context.Context, chunks [][]byte, pace time.Duration) *eventBody {
	return &eventBody{ctx: ctx, chunks: chunks, pace: pace, done: make(chan struct{})}
}

// Read copies from the current chunk only, so a reader never receives two
// events in one call.
func (b *eventBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, errClosed
	}
	if len(b.cur) == 0 {
		if b.next == len(b.chunks) {
			b.mu.Unlock()
			return 0, io.EOF
		}
		b.mu.Unlock()
		if err := b.wait(); err != nil {
			return 0, err
		}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return 0, errClosed
		}
		b.cur = b.chunks[b.next]
		b.next++
	}
	defer b.mu.Unlock()
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

// wait blocks for the pacing delay, returning early with the context's
// error or errClosed.
func (b *eventBody) wait() error {
	if b.pace <= 0 || b.next == 0 {
		select {
		case <-b.ctx.Done():
			return b.ctx.Err()
		case <-b.done:
			return errClosed
		default:
			return nil
		}
	}
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
func (b *eventBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
	return nil
}
