// Package shim holds what the thin shims of this module share: the
// bookkeeping every adapters.Adapter needs whatever library it wraps
// (cancellation by request id, an input estimate, closing), an HTTP
// client that reports each attempt the library makes, and the mapping of
// an HTTP failure a library surfaces (status, headers, body) to a
// canonical error. None of it changes what a library sends or how it
// reads an answer.
package shim

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Base is the library-independent half of a shim adapter. The zero Base
// is not usable; call NewBase.
type Base struct {
	Cfg adapters.Config
	// HTTP is the client handed to the library: the harness's injected
	// client (or a default one), its transport wrapped to report attempts.
	HTTP *http.Client
	// IDs is the tool-id map used when a request brings none.
	IDs canonical.ToolIDMap

	mu    sync.Mutex
	calls map[string]context.CancelFunc
}

// NewBase returns the Base of an adapter configured by cfg.
func NewBase(cfg adapters.Config) *Base {
	inner := cfg.HTTPClient
	if inner == nil {
		rt := cfg.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		inner = &http.Client{Transport: rt}
	}
	client := *inner
	rt := client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	client.Transport = &attemptTransport{next: rt, report: cfg.OnAttempt}
	return &Base{Cfg: cfg, HTTP: &client, IDs: adapters.NewToolIDMap(), calls: map[string]context.CancelFunc{}}
}

// Name returns the provider key the adapter serves under.
func (b *Base) Name() string { return b.Cfg.Name }

// EstimateInputTokens estimates with metis's default estimator: none of
// the wrapped libraries has one that works without the network.
func (b *Base) EstimateInputTokens(req *canonical.Request) int {
	return driver.Estimator{}.Estimate(req)
}

// now reads the Config's clock.
func (b *Base) now() time.Time {
	if b.Cfg.Clock != nil {
		return b.Cfg.Clock.Now()
	}
	return time.Now()
}

// Close releases nothing: the HTTP client is the harness's.
func (b *Base) Close() error { return nil }

// Begin starts the call of req (a streaming one when stream is set): it
// returns the context the library call runs under (cancelled by
// Cancel(req.RequestID)) and the call, whose End must be deferred. The
// call's HTTP attempts and its end are reported to Config.Observer as
// lifecycle events (llm.call_started per attempt, then llm.call_completed
// or llm.call_failed), as metis's own adapters report theirs.
func (b *Base) Begin(ctx context.Context, req *canonical.Request, stream bool) (context.Context, *Call) {
	ctx, cancel := context.WithCancel(ctx)
	c := &Call{id: req.RequestID, base: b, ctx: ctx, cancel: cancel}
	c.ev = adapters.Event{Adapter: b.Cfg.Name, Model: req.Model, RequestID: req.RequestID, SessionID: req.SessionID, Stream: stream}
	c.began = b.now()
	ctx = context.WithValue(ctx, callKey{}, c)
	c.ctx = ctx
	if req.RequestID != "" {
		b.mu.Lock()
		b.calls[req.RequestID] = cancel
		b.mu.Unlock()
	}
	return ctx, c
}

// Cancel aborts the call with this request id.
func (b *Base) Cancel(requestID string) bool {
	b.mu.Lock()
	cancel, ok := b.calls[requestID]
	b.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// ToolIDs returns the request's tool-id map, or the adapter's own.
func (b *Base) ToolIDs(req *canonical.Request) canonical.ToolIDMap {
	if req.ToolIDs != nil {
		return req.ToolIDs
	}
	return b.IDs
}

// Attempts returns how many HTTP attempts the call of ctx has made.
func Attempts(ctx context.Context) int {
	if c, ok := ctx.Value(callKey{}).(*Call); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.n
	}
	return 0
}

type callKey struct{}

// attemptTransport reports every round trip the library makes as an
// adapters.Attempt and as lifecycle events: a library that retries shows
// each try.
type attemptTransport struct {
	next   http.RoundTripper
	report func(adapters.Attempt)
}

func (t *attemptTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c, ok := r.Context().Value(callKey{}).(*Call)
	if !ok {
		return t.next.RoundTrip(r)
	}
	c.attemptStarted(r.Context())
	resp, err := t.next.RoundTrip(r)
	a := adapters.Attempt{RequestID: c.id}
	switch {
	case err != nil:
		a.Err = canonical.NewError(canonical.ErrNetwork, "", "%v", err)
	case resp.StatusCode >= 400:
		a.Status = resp.StatusCode
		a.Err = driver.HTTPError(driver.ClassifyStatus(resp.StatusCode), "", resp.StatusCode, http.StatusText(resp.StatusCode))
	default:
		a.Status = resp.StatusCode
	}
	a.N = c.attemptEnded(a.Status, a.Err)
	if t.report != nil {
		t.report(a)
	}
	return resp, err
}

// Classifier maps a provider's HTTP failure to a canonical error: the
// provider's documented error bodies and statuses (seed 003 §9), as
// metis's adapters/anthropic.Classify, adapters/openai.ClassifyChat and
// adapters/gemini.Classify do.
type Classifier func(status int, h http.Header, body []byte) *canonical.AdapterError

// HTTPFailure builds the canonical error of an HTTP failure a library
// reported with its status, headers and body.
func HTTPFailure(provider string, classify Classifier, status int, headers map[string]string, body []byte, cause error) *canonical.AdapterError {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	ae := classify(status, h, body)
	if ae == nil {
		ae = driver.DefaultClassify(status, h, body)
	}
	ae.Provider, ae.Err = provider, cause
	return ae
}

// Failure classifies an error a library returned that carries no HTTP
// status: the call's cancellation, a deadline, a broken connection.
func Failure(ctx context.Context, provider string, err error) *canonical.AdapterError {
	var ae *canonical.AdapterError
	switch {
	case ctx.Err() == context.Canceled:
		ae = canonical.NewError(canonical.ErrCancelled, "", "request cancelled")
	default:
		return driver.StreamError(ctx, provider, err)
	}
	ae.Provider, ae.Err = provider, err
	return ae
}
