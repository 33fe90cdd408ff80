package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Limits bound a call besides its whole-call timeout (Config.Timeout).
// Every adapter reads them from the same options, for the whole adapter
// (Config.Options, models.yaml adapters.<name>.options) or per model
// (models.<id>.options), next to the provider's own:
//
//	idle_timeout_seconds  the longest a call waits for the next byte from
//	                      the server; 0 turns the idle timeout off
//	                      (default 300)
//	max_body_bytes        the largest non-streamed 2xx body (default 64 MiB)
//	max_event_bytes       the largest event of a stream (default 64 MiB)
//
// The idle timeout runs from the moment a streamed call's request is sent
// to its response headers, then between any two reads of the stream, so
// a server that stops sending mid-stream (or never answers) ends the call
// long before the whole-call timeout: class network, code timeout, the
// content so far kept in a message.complete with stop reason error. A
// non-streamed call is bounded by it only once its headers have arrived
// (a server composes the whole answer before it answers at all): while
// its body is read.
type Limits struct {
	IdleTimeout   time.Duration
	MaxBodyBytes  int64
	MaxEventBytes int
}

// The default limits.
const (
	DefaultIdleTimeout = 300 * time.Second
	DefaultMaxBody     = 64 << 20
)

// DefaultLimits are the limits of a call whose options set none.
var DefaultLimits = Limits{IdleTimeout: DefaultIdleTimeout, MaxBodyBytes: DefaultMaxBody, MaxEventBytes: DefaultMaxSSEEvent}

// limitOptions are the option keys of Limits; every provider's
// DecodeOptions accepts them (and leaves them to the driver).
type limitOptions struct {
	IdleTimeout *float64 `option:"idle_timeout_seconds"`
	MaxBody     *int     `option:"max_body_bytes"`
	MaxEvent    *int     `option:"max_event_bytes"`
}

var limitSpec = func() *optionFields {
	s, err := optionSpec(reflect.TypeFor[limitOptions]())
	if err != nil {
		panic(err)
	}
	return s
}()

// decodeLimits reads the limit options of cfg, for the adapter and each
// model, skipping the provider's own keys.
func decodeLimits(cfg *adapters.Config) (*Options[Limits], error) {
	o, err := decodeOptions(cfg, limitOptions{}, limitSpec, true)
	if err != nil {
		return nil, err
	}
	out := &Options[Limits]{}
	if out.adapter, err = o.adapter.limits("options"); err != nil {
		return nil, OptionError(cfg, err)
	}
	for id, m := range o.models {
		l, err := m.limits("models." + id + ".options")
		if err != nil {
			return nil, OptionError(cfg, err)
		}
		if out.models == nil {
			out.models = map[string]Limits{}
		}
		out.models[id] = l
	}
	return out, nil
}

// limits checks the options and fills in the defaults; field names them
// in errors.
func (o limitOptions) limits(field string) (Limits, error) {
	l := DefaultLimits
	if o.IdleTimeout != nil {
		s := *o.IdleTimeout
		if s < 0 || math.IsNaN(s) || s > math.MaxInt64/float64(time.Second) {
			return l, fmt.Errorf("%s.idle_timeout_seconds: want a number of seconds ≥ 0 (0 turns it off), got %v", field, s)
		}
		l.IdleTimeout = time.Duration(s * float64(time.Second))
	}
	if o.MaxBody != nil {
		if *o.MaxBody <= 0 {
			return l, fmt.Errorf("%s.max_body_bytes: want a positive number of bytes, got %d", field, *o.MaxBody)
		}
		l.MaxBodyBytes = int64(*o.MaxBody)
	}
	if o.MaxEvent != nil {
		if *o.MaxEvent <= 0 {
			return l, fmt.Errorf("%s.max_event_bytes: want a positive number of bytes, got %d", field, *o.MaxEvent)
		}
		l.MaxEventBytes = *o.MaxEvent
	}
	return l, nil
}

// Limits returns the limits in force for the model with canonical id
// model (its options over the adapter's over DefaultLimits).
func (a *Adapter) Limits(model string) Limits { return a.limits.For(model) }

// idleTimeout is the cause an idle timer cancels its call with.
type idleTimeout struct{ d time.Duration }

func (e idleTimeout) Error() string {
	return fmt.Sprintf("no data from the server for %s (idle timeout; the idle_timeout_seconds option)", e.d)
}

// idleTimer ends a call that waits too long for the server: armed, it
// cancels the call's context with an idleTimeout cause unless kicked (by
// a read that brought data) within its duration. A nil *idleTimer does
// nothing, so a call without an idle timeout costs nothing.
type idleTimer struct {
	d      time.Duration
	cancel context.CancelCauseFunc
	clock  adapters.Clock // runs the timer when a TimerClock
	t      adapters.Timer
}

// watchIdle returns a context that an idle timer of d on clock cancels,
// and the timer (nil when d is not positive). release ends both.
func watchIdle(ctx context.Context, d time.Duration, clock adapters.Clock) (context.Context, *idleTimer) {
	if d <= 0 {
		return ctx, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, &idleTimer{d: d, cancel: cancel, clock: clock}
}

// arm starts (or restarts) the countdown.
func (w *idleTimer) arm() {
	if w == nil {
		return
	}
	if w.t == nil {
		w.t = adapters.AfterFunc(w.clock, w.d, func() { w.cancel(idleTimeout{w.d}) })
		return
	}
	w.t.Reset(w.d)
}

// pause stops the countdown until the next arm.
func (w *idleTimer) pause() {
	if w != nil && w.t != nil {
		w.t.Stop()
	}
}

// release stops the timer for good and releases its context.
func (w *idleTimer) release() {
	if w != nil {
		w.pause()
		w.cancel(nil)
	}
}

// idleError returns the error of a call that its idle timer ended, or
// nil when ctx was not ended by one.
func idleError(ctx context.Context, provider string) *canonical.AdapterError {
	var it idleTimeout
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &it) {
		return nil
	}
	ae := canonical.NewError(canonical.ErrNetwork, canonical.CodeTimeout, "%v", it)
	ae.Provider, ae.Err = provider, it
	return ae
}

// bodyReader is how decoders read a 2xx body: it fails once the call's
// context is done (so a cancelled call stops at the next read even if the
// transport does not notice), kicks the idle timer on every read that
// brings data, hands out first what sniffing read ahead, and carries the
// call's event size limit to NewSSEReader.
type bodyReader struct {
	ctx      context.Context
	r        io.Reader
	idle     *idleTimer
	maxEvent int
	head     []byte // read ahead by sniff, handed out first
	err      error  // met by sniff, returned once head is drained
	n        int64  // bytes read from r
	first    [512]byte
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	if b.ctx.Err() != nil {
		return 0, fmt.Errorf("reading body: %w", context.Cause(b.ctx))
	}
	n, err := b.r.Read(p)
	if n > 0 {
		b.n += int64(n)
		b.idle.arm()
	}
	return n, err
}

// maxEventSize is the event size limit NewSSEReader takes from the body.
func (b *bodyReader) maxEventSize() int { return b.maxEvent }

// eventLimited is a body that says how large one event may be.
type eventLimited interface{ maxEventSize() int }

// sniff reads ahead to the first byte of the body that is not white space
// or a byte-order mark and returns it, or 0 when the body ends (or fails)
// before one; what it read is handed out again by Read.
func (b *bodyReader) sniff() byte {
	buf := b.first[:0]
	for len(buf) < len(b.first) {
		n, err := b.Read(b.first[len(buf):])
		buf = b.first[:len(buf)+n]
		for _, c := range bytesTrimBOM(buf) {
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			}
			b.head = buf
			return c
		}
		if err != nil {
			b.head, b.err = buf, err
			return 0
		}
	}
	b.head = buf
	return 0
}

func bytesTrimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// readBody reads a non-streamed 2xx body whole, at most maxBytes bytes,
// through the call's context and idle timer. A body the connection cuts
// off is network/stream_truncated (retryable: the Caller tries again); a
// larger body is invalid_response.
func readBody(ctx context.Context, provider string, resp *http.Response, maxBytes int64, idle *idleTimer) ([]byte, *canonical.AdapterError) {
	defer resp.Body.Close()
	if resp.ContentLength > maxBytes {
		return nil, tooLarge(provider, resp.ContentLength, maxBytes)
	}
	idle.arm()
	defer idle.pause()
	r := &bodyReader{ctx: ctx, r: resp.Body, idle: idle}
	body, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	switch {
	case err == nil && int64(len(body)) > maxBytes:
		return nil, tooLarge(provider, -1, maxBytes)
	case err == nil:
		return body, nil
	case ctx.Err() != nil:
		return nil, NetworkError(ctx, provider, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		ae := canonical.NewError(canonical.ErrNetwork, canonical.CodeStreamTruncated,
			"response body cut off after %d bytes: the connection closed before its end", len(body))
		ae.Provider, ae.Err = provider, err
		return nil, ae
	}
	ae := NetworkError(ctx, provider, err)
	ae.Message = "reading response body: " + ae.Message
	return nil, ae
}

// tooLarge is the error of a body over limit bytes (size, when known).
func tooLarge(provider string, size, limit int64) *canonical.AdapterError {
	if size > 0 {
		return InvalidResponse(provider, nil, "response body of %d bytes is larger than the limit of %d bytes (the max_body_bytes option)", size, limit)
	}
	return InvalidResponse(provider, nil, "response body is larger than the limit of %d bytes (the max_body_bytes option)", limit)
}
