package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/metis-llm/metis/internal/wire"
)

// errClosed is returned by Read after Close, as net/http does.
var errClosed = errors.New("http: read on closed response body")

// streamBody passes on the events of a response body and applies a
// stream fault after f.AfterEvents of them. Every Read checks the request
// context first, and a stall waits for it (or for Close).
type streamBody struct {
	ctx  context.Context
	src  io.ReadCloser
	f    *Fault
	api  API
	next func() ([]byte, error) // the body's next event

	st       streamState
	out      []byte // bytes to hand out before anything else
	passed   int    // events passed on
	injected bool
	err      error // returned once out is drained

	closeOnce sync.Once
	done      chan struct{}
}

func newStreamBody(ctx context.Context, src io.ReadCloser, f *Fault, api API, eventStream bool) *streamBody {
	b := &streamBody{ctx: ctx, src: src, f: f, api: api, done: make(chan struct{})}
	if eventStream {
		b.next = newSplitter(src).next
	} else {
		read := false
		b.next = func() ([]byte, error) {
			if read {
				return nil, io.EOF
			}
			read = true
			data, err := io.ReadAll(src)
			if err != nil {
				return nil, err
			}
			if len(data) == 0 {
				return nil, io.EOF
			}
			return data, nil
		}
	}
	return b
}

// Read hands out the pending bytes, then the next event or the fault.
func (b *streamBody) Read(p []byte) (int, error) {
	for {
		select {
		case <-b.done:
			return 0, errClosed
		default:
		}
		if err := b.ctx.Err(); err != nil {
			return 0, err
		}
		if len(b.out) > 0 {
			n := copy(p, b.out)
			b.out = b.out[n:]
			return n, nil
		}
		if b.err != nil {
			return 0, b.err
		}
		b.advance()
	}
}

// advance fills out with the next event, or strikes.
func (b *streamBody) advance() {
	if b.injected || b.passed < b.f.AfterEvents {
		ev, err := b.next()
		if err != nil {
			b.err = err
			return
		}
		b.st.observe(b.api, ev)
		b.passed++
		b.out = ev
		return
	}
	b.injected = true
	switch b.f.Kind {
	case KindTruncate:
		b.err = io.ErrUnexpectedEOF // the connection closed before the body's end
	case KindPartial:
		ev, err := b.next()
		if err != nil {
			b.err = err // no event left: the body ends as it would have
			return
		}
		b.out = cutFrame(ev)
		b.err = io.ErrUnexpectedEOF
	case KindErrorEvent:
		b.out = errorEvent(b.api, b.f, &b.st)
		b.err = io.EOF
	case KindMalformed:
		b.out = malformedEvent(b.api, b.f.Body, b.st.EOL)
	case KindReset:
		b.err = resetError()
	case KindStall:
		b.err = stall(b.ctx, b.done)
	}
}

// Close closes the underlying body and wakes a stalled Read.
func (b *streamBody) Close() error {
	var err error
	b.closeOnce.Do(func() {
		close(b.done)
		err = b.src.Close()
	})
	return err
}

// dripBody hands out a body at most chunk bytes per Read, pausing between
// pieces through sleep.
type dripBody struct {
	ctx     context.Context
	src     io.ReadCloser
	chunk   int
	delay   time.Duration
	sleep   func(context.Context, time.Duration) error
	started bool
}

func (b *dripBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.started && b.sleep != nil && b.delay > 0 {
		if err := b.sleep(b.ctx, b.delay); err != nil {
			return 0, err
		}
	}
	b.started = true
	if len(p) > b.chunk {
		p = p[:b.chunk]
	}
	return b.src.Read(p)
}

func (b *dripBody) Close() error { return b.src.Close() }

// burstBody hands out a body in as few reads as the reader's buffer
// allows: each Read fills p with as much of the source as it holds, many
// events at a time, as a socket does when the whole stream arrived
// before the client read it.
type burstBody struct {
	ctx context.Context
	src io.ReadCloser
}

func (b *burstBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	for n < len(p) {
		m, err := b.src.Read(p[n:])
		n += m
		if err != nil || m == 0 {
			return n, err
		}
	}
	return n, nil
}

func (b *burstBody) Close() error { return b.src.Close() }

// malformedEvent is the event a malformed fault inserts: "{not json", or
// data (a fault's body) when given, as the wire frames an event's data.
// On Bedrock's InvokeModel stream data is the Messages event a well-formed
// chunk carries ({"bytes": base64}): the frame and its envelope decode
// and the event inside does not, or breaks the protocol; without data the
// chunk's own payload is the garbage. On Converse data is an event's
// payload, on Ollama a line, elsewhere a data line.
func malformedEvent(api wire.API, data []byte, eol string) []byte {
	if data == nil {
		data = []byte("{not json")
	} else if api == wire.Bedrock {
		chunk, _ := json.Marshal(struct {
			Bytes []byte `json:"bytes"`
		}{data}) // a struct of a byte slice always marshals
		return wire.BedrockChunk(chunk)
	}
	switch api {
	case wire.Bedrock:
		return wire.BedrockChunk(data)
	case wire.Ollama:
		return append(bytes.Clone(data), '\n')
	case wire.BedrockConverse:
		return wire.BedrockEvent("contentBlockDelta", data)
	}
	if eol == "" {
		eol = "\n"
	}
	ev := "data: " + string(data) + eol + eol
	if api == wire.Anthropic || api == wire.VertexAnthropic {
		// Every event of Anthropic's stream is named, and its streaming
		// documentation asks clients to skip event types they do not
		// know: an unnamed event there is one an adapter may skip. The
		// garbage comes as an event it must read.
		ev = "event: content_block_delta" + eol + ev
	}
	return []byte(ev)
}
