package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"time"

	"github.com/metis-llm/metis/canonical"
)

// Runtime is the call plumbing every adapter embeds: the retrying Caller,
// the cancel registry and the configuration. Adapters supply how to build
// the HTTP request and how to decode the answer into an Assembler.
type Runtime struct {
	Config  Config
	Caller  *Caller
	Cancels Cancels
}

// StreamDecoder reads a streamed body into a. It returns nil after it has
// called a.Finish on the provider's terminal event, or the error that
// stopped it (a provider error event, malformed data, a read failure).
// Returning nil without finishing means the stream was truncated.
type StreamDecoder func(body io.Reader, a *Assembler) error

// BodyDecoder decodes a non-streamed body into a, calling a.Finish.
type BodyDecoder func(body []byte, a *Assembler) error

// NewRuntime returns a Runtime for cfg whose HTTP failures are classified
// by classify (nil: DefaultClassify).
func NewRuntime(cfg Config, classify func(int, http.Header, []byte) *canonical.AdapterError) *Runtime {
	rt := &Runtime{Config: cfg}
	rt.Caller = NewCaller(&rt.Config, classify)
	return rt
}

// Cancel aborts the call with requestID (Adapter.Cancel).
func (rt *Runtime) Cancel(requestID string) bool { return rt.Cancels.Cancel(requestID) }

// Stream runs a streaming call: newReq builds each attempt's request and
// decode reads the 2xx body. Failures before the body yield the error
// alone; failures after it complete the message (stop reason error or
// cancelled) as Assembler.Fail describes. The body is always closed.
func (rt *Runtime) Stream(ctx context.Context, req *canonical.Request, newReq func(context.Context) (*http.Request, error), decode StreamDecoder) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		began := time.Now()
		ctx, done := rt.Cancels.Track(ctx, req.RequestID, rt.Config.CallTimeout())
		defer done()
		resp, err := rt.Caller.Do(ctx, req.RequestID, newReq)
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		defer resp.Body.Close()
		a := NewAssembler(yield, rt.Config.Name, req.Model, req.RequestID, req.ToolIDs)
		a.SetClock(began, time.Now)
		body := &ctxReader{ctx: ctx, r: resp.Body}
		err = safeDecode(func() error { return decode(body, a) })
		if a.Finished() || a.Stopped() {
			return
		}
		a.Fail(ctx, err)
	}
}

// Complete runs a non-streaming call and decodes the whole body (kept
// verbatim in Response.RawBody).
func (rt *Runtime) Complete(ctx context.Context, req *canonical.Request, newReq func(context.Context) (*http.Request, error), decode BodyDecoder) (*canonical.Response, error) {
	began := time.Now()
	ctx, done := rt.Cancels.Track(ctx, req.RequestID, rt.Config.CallTimeout())
	defer done()
	resp, err := rt.Caller.Do(ctx, req.RequestID, newReq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		ae := NetworkError(ctx, rt.Config.Name, err)
		ae.RequestID = req.RequestID
		return nil, ae
	}
	a := NewAssembler(nil, rt.Config.Name, req.Model, req.RequestID, req.ToolIDs)
	a.SetClock(began, time.Now)
	a.SetRawBody(body)
	if err := safeDecode(func() error { return decode(body, a) }); err != nil {
		// The whole body is in hand, so anything but the decoder's own
		// classified error is a body that does not decode.
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) {
			ae = InvalidResponse(rt.Config.Name, err, "decoding response body: %v", err)
		}
		if ae.Provider == "" {
			ae.Provider = rt.Config.Name
		}
		ae.RequestID = req.RequestID
		return nil, ae
	}
	if !a.Finished() {
		ae := InvalidResponse(rt.Config.Name, nil, "response body has no final state")
		ae.RequestID = req.RequestID
		return nil, ae
	}
	return a.Response(), nil
}

// safeDecode turns a decoder panic into an invalid_response error, so that
// no byte sequence from a server can crash the caller.
func safeDecode(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = InvalidResponse("", nil, "decoder panic: %v", r)
		}
	}()
	return f()
}

// ctxReader fails reads once ctx is done, so a cancelled call stops at the
// next read even if the transport does not notice.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("reading body: %w", err)
	}
	return c.r.Read(p)
}
