package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// DefaultTimeout bounds a whole call when Config.Timeout is zero.
const DefaultTimeout = 600 * time.Second

// Adapter is an adapters.Adapter made of a Provider and the call flow
// the package doc describes. It is safe for concurrent use.
type Adapter struct {
	cfg      adapters.Config
	info     Info
	p        Provider
	finisher Finisher
	authz    RequestAuthorizer
	log      *slog.Logger
	caller   *Caller
	cancels  Cancels
	capOpts  []CapabilityOption
	limits   *Options[Limits]
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter for cfg built on the provider newProvider
// makes. It fills cfg.Name from info.Name when empty, refuses a missing
// key as info.Key says (Config.KeyError), then calls newProvider with the
// completed Config, so that option errors name the adapter.
func New(cfg adapters.Config, info Info, newProvider func(cfg *adapters.Config) (Provider, error)) (*Adapter, error) {
	if cfg.Name == "" {
		cfg.Name = info.Name
	}
	if needsKey(&cfg, &info) {
		if err := cfg.KeyError(); err != nil {
			return nil, err
		}
	}
	p, err := newProvider(&cfg)
	if err != nil {
		return nil, err
	}
	limits, err := decodeLimits(&cfg)
	if err != nil {
		return nil, err
	}
	a := &Adapter{cfg: cfg, info: info, p: p, log: cfg.Logger, limits: limits}
	a.cancels.Clock = cfg.Clock
	if a.log == nil {
		a.log = slog.Default()
	}
	a.finisher, _ = p.(Finisher)
	a.authz, _ = p.(RequestAuthorizer)
	a.caller = NewCaller(&a.cfg, p.Classify)
	if info.ImagesProjected {
		a.capOpts = append(a.capOpts, ImagesProjected())
	}
	return a, nil
}

func needsKey(cfg *adapters.Config, info *Info) bool {
	switch info.Key {
	case KeyRequired:
		return true
	case KeyRequiredByDefault:
		if cfg.BaseURL == "" {
			return true
		}
		u, err := url.Parse(cfg.BaseURL)
		d, derr := url.Parse(info.DefaultBaseURL)
		return err != nil || derr != nil || u.Hostname() == d.Hostname()
	}
	return false
}

// Client returns the HTTP client cfg asks for: HTTPClient, else a client
// on Transport (http.DefaultTransport when nil).
func Client(cfg *adapters.Config) *http.Client {
	if cfg.HTTPClient != nil {
		return cfg.HTTPClient
	}
	t := cfg.Transport
	if t == nil {
		t = http.DefaultTransport
	}
	return &http.Client{Transport: t}
}

// Timeout returns cfg.Timeout, or DefaultTimeout when it is zero.
func Timeout(cfg *adapters.Config) time.Duration {
	if cfg.Timeout > 0 {
		return cfg.Timeout
	}
	return DefaultTimeout
}

// Name returns the adapter's name (Config.Name).
func (a *Adapter) Name() string { return a.cfg.Name }

// Model returns the model a canonical id names under this adapter.
func (a *Adapter) Model(id string) Model {
	m := a.cfg.Model(id)
	return Model{ID: id, WireName: m.WireName}
}

// Capabilities returns the provider's declaration for model with the
// registry's overrides applied field by field.
func (a *Adapter) Capabilities(model string) canonical.Capabilities {
	base := a.p.Capabilities(a.Model(model))
	m, ok := a.cfg.Models[model]
	if !ok || len(m.Capabilities) == 0 {
		return base
	}
	out := base
	if err := json.Unmarshal(m.Capabilities, &out); err != nil {
		return base
	}
	return out
}

// EstimateInputTokens estimates req's input tokens without the network,
// with the provider's Info.Estimator.
func (a *Adapter) EstimateInputTokens(req *canonical.Request) int {
	return a.info.Estimator.Estimate(req)
}

// Cancel aborts the in-flight call with requestID.
func (a *Adapter) Cancel(requestID string) bool { return a.cancels.Cancel(requestID) }

// Close releases idle connections.
func (a *Adapter) Close() error {
	a.caller.Client.CloseIdleConnections()
	return nil
}

// prepare runs the steps before the first HTTP attempt, in the package
// doc's order: request id and tool-id map, history validation, capability
// check, encoding. Its errors carry the adapter's name and the request id.
func (a *Adapter) prepare(ctx context.Context, req *canonical.Request, stream bool) (*Call, *Request, error) {
	r := *req
	if r.RequestID == "" {
		r.RequestID = canonical.NewRequestID()
	}
	if r.ToolIDs == nil {
		r.ToolIDs = adapters.NewToolIDMap()
	}
	r.Stream = stream
	c := &Call{Adapter: a.cfg.Name, Request: &r, Model: a.Model(r.Model), Stream: stream, Log: a.log, Limits: a.limits.For(r.Model), observer: a.cfg.Observer, ctx: ctx}
	fail := func(err error) (*Call, *Request, error) {
		var ae *canonical.AdapterError
		if errors.As(err, &ae) {
			if ae.Provider == "" {
				ae.Provider = a.cfg.Name
			}
			ae.RequestID = r.RequestID
		}
		return c, nil, err
	}
	msgs, err := skipUnknown(c, r.Messages)
	if err != nil {
		return fail(err)
	}
	r.Messages = msgs
	if err := canonical.ValidateHistory(r.Messages, r.Tools); err != nil {
		return fail(err)
	}
	c.Caps = a.Capabilities(r.Model)
	if err := CheckCapabilities(a.cfg.Name, &r, c.Caps, stream, a.capOpts...); err != nil {
		return fail(err)
	}
	w, err := a.p.Encode(c)
	if err != nil {
		return fail(err)
	}
	if c.critical != nil {
		return fail(c.critical)
	}
	if stream && a.info.Estimator.Tokenizer != nil {
		// Ready the model's tokenizer now (a second or more the first time
		// in a process for OpenAI's encodings), not in the estimate of a
		// stream that ends without usage: a cancel must end at once.
		a.info.Estimator.Tokenizer(r.Model)
	}
	return c, w, nil
}

// Encode returns the wire request that Complete (stream false) or Stream
// would send for req, without sending it: it runs every step before the
// first attempt (request id, history validation, capability check,
// Provider.Encode). The key and Config.ExtraHeaders are not in its
// headers; they are added per attempt.
func (a *Adapter) Encode(req *canonical.Request, stream bool) (*Request, error) {
	_, w, err := a.prepare(context.Background(), req, stream)
	return w, err
}

// attempt returns the builder of each attempt's HTTP request: Encode's
// method, URL, headers and body, then the key, then Config.ExtraHeaders.
func (a *Adapter) attempt(w *Request) func(context.Context) (*http.Request, error) {
	method := w.Method
	if method == "" {
		method = http.MethodPost
	}
	return func(ctx context.Context) (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, method, w.URL, bytes.NewReader(w.Body))
		if err != nil {
			return nil, err
		}
		for k, vs := range w.Header {
			hr.Header[k] = vs
		}
		if a.cfg.APIKey != "" {
			a.p.Authorize(hr.Header, a.cfg.APIKey)
		}
		for k, v := range a.cfg.ExtraHeaders {
			hr.Header.Set(k, v)
		}
		if a.authz != nil {
			if err := a.authz.AuthorizeRequest(hr, w.Body); err != nil {
				var ae *canonical.AdapterError
				if !errors.As(err, &ae) {
					ae = canonical.NewError(canonical.ErrAuth, "", "authorizing the request: %v", err)
					ae.Err = err
				}
				return nil, ae
			}
		}
		return hr, nil
	}
}

// newAssembler returns the Assembler of call c, checking tool inputs
// against the request's tools.
func (a *Adapter) newAssembler(ctx context.Context, c *Call, yield func(canonical.StreamEvent, error) bool, began time.Time) *Assembler {
	asm := NewAssembler(yield, a.cfg.Name, c.Request.Model, c.Request.RequestID, c.Request.ToolIDs)
	asm.SetClock(began, time.Now)
	asm.SetContext(ctx)
	if a.finisher != nil {
		asm.onFinish = func(resp *canonical.Response) error { return a.finisher.Finish(c, asm, resp) }
	}
	if len(c.Request.Tools) > 0 {
		asm.CheckToolInputs(c.Request.Tools, func(id, name, reason string) {
			c.Log.LogAttrs(ctx, slog.LevelWarn, ToolInputInvalidMsg,
				slog.String("session_id", c.Request.SessionID),
				slog.String("request_id", c.Request.RequestID),
				slog.String("tool_use_id", id),
				slog.String("tool_name", name),
				slog.String("adapter", c.Adapter),
				slog.String("reason", reason))
			if a.cfg.Observer != nil {
				e := a.event(c, adapters.EventToolInputInvalid)
				e.ToolUseID, e.ToolName, e.Reason = id, name, reason
				a.cfg.Observer.Observe(ctx, e)
			}
		})
	}
	return asm
}

// ToolInputInvalidMsg is the message of the WARN entry written when a
// tool call's input arrives not matching its tool's schema.
const ToolInputInvalidMsg = "tool input invalid on arrival"

// event returns a lifecycle event of type t for call c.
func (a *Adapter) event(c *Call, t adapters.EventType) adapters.Event {
	return adapters.Event{
		Type: t, Time: a.now(), Adapter: a.cfg.Name, Model: c.Request.Model,
		RequestID: c.Request.RequestID, SessionID: c.Request.SessionID, Stream: c.Stream,
	}
}

// now reads the Config's clock.
func (a *Adapter) now() time.Time {
	if a.cfg.Clock != nil {
		return a.cfg.Clock.Now()
	}
	return time.Now()
}

// send runs the attempts of call c, with its lifecycle events and opt.
func (a *Adapter) send(ctx context.Context, c *Call, w *Request, opt sendOptions) (*http.Response, []byte, adapters.Event, int, error) {
	ev := a.event(c, "")
	resp, body, n, err := a.caller.do(ctx, &ev, a.attempt(w), opt)
	return resp, body, ev, n, err
}

// finished emits the end of a call whose 2xx body was decoded:
// llm.call_completed, or llm.call_failed when err is set or the message
// completed with stop reason error or cancelled.
func (a *Adapter) finished(ctx context.Context, ev *adapters.Event, attempt, status int, resp *canonical.Response, err error) {
	if a.cfg.Observer == nil {
		return
	}
	e := *ev
	e.Attempt, e.Status, e.Time = attempt, status, a.now()
	e.Latency = e.Time.Sub(ev.Time)
	if resp != nil {
		e.Usage, e.StopReason = resp.Usage, resp.StopReason
	}
	var ae *canonical.AdapterError
	switch {
	case err != nil:
		ae = StreamError(ctx, a.cfg.Name, err)
	case resp == nil || resp.StopReason == canonical.StopCancelled:
		ae = canonical.NewError(canonical.ErrCancelled, "", "request cancelled")
		ae.Provider, ae.RequestID = a.cfg.Name, ev.RequestID
	}
	if ae != nil {
		e.Type, e.Err, e.ErrorClass = adapters.EventCallFailed, ae, ae.Class
	} else {
		e.Type = adapters.EventCallCompleted
	}
	a.cfg.Observer.Observe(ctx, e)
}

// Stream makes a streaming call (adapters.Adapter.Stream). Failures
// before the body yield the error alone, and so does a 2xx body that is
// not a stream (see the package doc); failures after it complete the message
// (stop reason error or cancelled) as Assembler.Fail describes. The body
// is always closed.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	c, w, err := a.prepare(ctx, req, true)
	if err != nil {
		return FailedStream(err)
	}
	return func(yield func(canonical.StreamEvent, error) bool) {
		began := time.Now()
		ctx, done := a.cancels.Track(ctx, c.Request.RequestID, Timeout(&a.cfg))
		defer done()
		ctx, idle := watchIdle(ctx, c.Limits.IdleTimeout, a.cfg.Clock)
		defer idle.release()
		resp, _, ev, n, err := a.send(ctx, c, w, sendOptions{idle: idle, idleHeaders: true})
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		defer resp.Body.Close()
		asm, nr := a.decodeStream(ctx, c, resp.StatusCode, resp.Header, resp.Body, idle, yield, began)
		if nr != nil {
			a.finished(ctx, &ev, n, resp.StatusCode, nil, nr)
			yield(canonical.StreamEvent{}, nr)
			return
		}
		if a.cfg.Observer != nil {
			out, err := asm.outcome()
			a.finished(ctx, &ev, n, resp.StatusCode, out, err)
		}
	}
}

// StreamBody yields what Stream yields for req when the server answers
// 2xx with body, without the network: every step before the first
// attempt, then the provider's DecodeStream (and Finisher) on body. It is
// for fuzzing, benchmarks and replaying recorded bodies.
func (a *Adapter) StreamBody(req *canonical.Request, body io.Reader) iter.Seq2[canonical.StreamEvent, error] {
	c, _, err := a.prepare(context.Background(), req, true)
	if err != nil {
		return FailedStream(err)
	}
	return func(yield func(canonical.StreamEvent, error) bool) {
		if _, nr := a.decodeStream(context.Background(), c, http.StatusOK, nil, body, nil, yield, time.Now()); nr != nil {
			yield(canonical.StreamEvent{}, nr)
		}
	}
}

// decodeStream reads a 2xx stream body into events. A body that is not a
// stream (see the package doc) is not decoded: its error is returned, for
// the caller to yield alone.
func (a *Adapter) decodeStream(ctx context.Context, c *Call, status int, h http.Header, r io.Reader, idle *idleTimer, yield func(canonical.StreamEvent, error) bool, began time.Time) (*Assembler, *canonical.AdapterError) {
	body := &bodyReader{ctx: ctx, r: r, idle: idle, maxEvent: c.Limits.MaxEventBytes}
	doc, first := documentType(h), body.sniff()
	jsonLines := a.jsonLines(h, first)
	if mt := notAStreamType(h); doc == "" && mt != "" && !isDocumentStart(first) && !looksLikeSSE(body.head) {
		doc = "a " + mt + " body"
	}
	if (doc != "" || isDocumentStart(first)) && !jsonLines {
		if doc == "" {
			doc = "a document"
		}
		rest, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
		return nil, a.notAResponse(c, status, h, rest, doc+", not an event stream")
	}
	asm := a.newAssembler(ctx, c, yield, began)
	err := safeDecode(asm, func() error { return a.p.DecodeStream(c, body, asm) })
	if asm.Finished() || asm.stopped {
		return asm, nil
	}
	asm.Fail(ctx, err)
	return asm, nil
}

// jsonLines reports whether a streamed body that starts like a JSON
// document is the provider's NDJSON stream: the provider streams JSON
// lines (Info.JSONLines), the body starts with '{', and the content type
// is application/x-ndjson or absent. A JSON object labelled anything
// else (application/json, text/event-stream) is still a document.
func (a *Adapter) jsonLines(h http.Header, first byte) bool {
	if !a.info.JSONLines || first != '{' {
		return false
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/x-ndjson"
}

// Complete makes a non-streaming call and decodes the whole body (kept
// verbatim in Response.RawBody). The body is read within the attempt, so
// a body the connection cuts off is retried like a failed attempt; a
// complete body that is not a response is an error (see the package doc).
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	c, w, err := a.prepare(ctx, req, false)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	ctx, done := a.cancels.Track(ctx, c.Request.RequestID, Timeout(&a.cfg))
	defer done()
	ctx, idle := watchIdle(ctx, c.Limits.IdleTimeout, a.cfg.Clock)
	defer idle.release()
	resp, body, ev, n, err := a.send(ctx, c, w, sendOptions{idle: idle, readBody: true, maxBody: c.Limits.MaxBodyBytes})
	if err != nil {
		return nil, err
	}
	out, err := a.decodeBody(ctx, c, resp.StatusCode, resp.Header, body, began)
	a.finished(ctx, &ev, n, resp.StatusCode, out, err)
	return out, err
}

// CompleteBody returns what Complete returns for req when the server
// answers 2xx with body, without the network (see StreamBody).
func (a *Adapter) CompleteBody(req *canonical.Request, body []byte) (*canonical.Response, error) {
	c, _, err := a.prepare(context.Background(), req, false)
	if err != nil {
		return nil, err
	}
	return a.decodeBody(context.Background(), c, http.StatusOK, nil, body, time.Now())
}

// decodeBody decodes a whole 2xx body; one that is not a response is an
// error (see the package doc).
func (a *Adapter) decodeBody(ctx context.Context, c *Call, status int, h http.Header, body []byte, began time.Time) (*canonical.Response, error) {
	if reason := notABody(h, body); reason != "" {
		return nil, a.notAResponse(c, status, h, body, reason)
	}
	asm := a.newAssembler(ctx, c, nil, began)
	asm.SetRawBody(body)
	err := safeDecode(asm, func() error { return a.p.DecodeBody(c, body, asm) })
	if err == nil && asm.finishErr != nil {
		err = asm.finishErr
	}
	if err == nil && !asm.Finished() {
		err = InvalidResponse(a.cfg.Name, nil, "response body has no final state")
	}
	if err != nil {
		// The whole body is in hand, so anything but the decoder's own
		// classified error is a body that does not decode.
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) {
			ae = InvalidResponse(a.cfg.Name, err, "decoding response body: %v", err)
		}
		if statesError(body) || ae.Code == canonical.CodeInvalidResponse && ae.Class == canonical.ErrServer {
			// The decoder could not read it as a response: an error the
			// body states (classified as one stated in a stream, whatever
			// the decoder made of it), or a body that is not one.
			nr := a.notAResponse(c, status, h, body, ae.Message)
			if nr.Code == canonical.CodeInvalidResponse && nr.Err == nil {
				nr.Err = ae.Err
			}
			return nil, nr
		}
		if ae.Provider == "" {
			ae.Provider = a.cfg.Name
		}
		ae.Status, ae.RequestID = status, c.Request.RequestID
		return nil, ae
	}
	return asm.Response(), nil
}

// FailedStream is the stream of a call that failed before its first
// event: err, alone (see adapters.Adapter.Stream).
func FailedStream(err error) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		yield(canonical.StreamEvent{}, err)
	}
}

// safeDecode turns a decoder panic into an invalid_response error, so that
// no byte sequence from a server can crash the caller. A panic in the
// consumer's loop body, which asm's yield runs, is not the decoder's: it
// is left to unwind to the caller as it is, never recovered (recovering
// it and yielding again would turn it into Go's "range function continued
// iteration after loop body panic").
func safeDecode(asm *Assembler, f func() error) (err error) {
	defer func() {
		if asm.inYield {
			return
		}
		if r := recover(); r != nil {
			err = InvalidResponse("", nil, "decoder panic: %v", r)
		}
	}()
	return f()
}
