package driver

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// MaxRetryAfter caps any provider's Retry-After hint.
const MaxRetryAfter = 60 * time.Second

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// Caller sends a call's HTTP requests with the shared retry policy of
// 000 §6.4: at most 1+MaxRetries attempts, exponential backoff with jitter
// or the provider's Retry-After (capped at 60 s), retrying only the
// transient classes (rate_limit, server_error, network) and never a
// response that says x-should-retry: false. It returns only once it has a
// 2xx response, whose body the caller reads and closes, so a stream is
// never retried after it has yielded an event.
type Caller struct {
	// Provider names the adapter in errors.
	Provider string
	Client   *http.Client
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// Clock drives backoff sleeps; nil means adapters.RealClock.
	Clock adapters.Clock
	// OnAttempt is told about every attempt.
	OnAttempt func(adapters.Attempt)
	// Observer receives llm.call_started before every attempt, and
	// llm.call_failed and llm.retry_scheduled after a failed one.
	Observer adapters.Observer
	// Classify maps a non-2xx response to an AdapterError. body is the
	// response body, truncated to 1 MiB. Nil means DefaultClassify. A
	// RetryAfter it sets from the body wins over the headers; either is
	// capped at MaxRetryAfter.
	Classify func(status int, h http.Header, body []byte) *canonical.AdapterError
	// BaseDelay is the first backoff (default 1 s); each retry doubles it
	// up to MaxDelay (default 30 s), plus up to 25% jitter.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Jitter returns a number in [0,1); nil means the Clock's Jitter
	// method when it has one, else math/rand.
	Jitter func() float64
	// Reauthorize, when set, is asked after a 401 whether the credential
	// the refused request carried can be replaced by a different one (see
	// Reauthorizer); if so the request is sent again at once, once per
	// call, without using up a retry.
	Reauthorize func(refused *http.Request) bool
}

// NewCaller returns a Caller configured from cfg.
func NewCaller(cfg *adapters.Config, classify func(int, http.Header, []byte) *canonical.AdapterError) *Caller {
	return &Caller{
		Provider:   cfg.Name,
		Client:     Client(cfg),
		MaxRetries: cfg.MaxRetries,
		Clock:      cfg.Clock,
		OnAttempt:  cfg.OnAttempt,
		Observer:   cfg.Observer,
		Classify:   classify,
	}
}

// Do sends the request newReq builds (called once per attempt, with the
// attempt's context) and returns the first 2xx response, or the last
// failure as a *canonical.AdapterError carrying the attempt count.
func (c *Caller) Do(ctx context.Context, requestID string, newReq func(context.Context) (*http.Request, error)) (*http.Response, error) {
	resp, _, _, err := c.do(ctx, &adapters.Event{Adapter: c.Provider, RequestID: requestID}, newReq, sendOptions{})
	return resp, err
}

// sendOptions are what a call adds to the retry policy.
type sendOptions struct {
	// idle, when set with idleHeaders, bounds each attempt's wait for its
	// response headers (streamed calls); with readBody, the reading of
	// the body.
	idle        *idleTimer
	idleHeaders bool
	// readBody makes each attempt read a 2xx body whole, at most maxBody
	// bytes, so that a body the connection cuts off is retried like any
	// network failure (non-streamed calls).
	readBody bool
	maxBody  int64
}

// do is Do for a call whose lifecycle events start from ev (Adapter,
// Model, RequestID, SessionID, Stream); it also returns the number of the
// attempt that succeeded and fills ev.Time with the first attempt's
// start, from which latencies count.
//
// With opt.readBody, the body is read (and closed) within the attempt and
// returned with the response.
func (c *Caller) do(ctx context.Context, ev *adapters.Event, newReq func(context.Context) (*http.Request, error), opt sendOptions) (*http.Response, []byte, int, error) {
	clock := c.Clock
	if clock == nil {
		clock = adapters.RealClock{}
	}
	requestID := ev.RequestID
	if c.Observer != nil {
		ev.Time = clock.Now()
	}
	attempts := 1 + max(c.MaxRetries, 0)
	reauthorized := false
	for n := 1; ; n++ {
		if c.Observer != nil {
			e := *ev
			e.Type, e.Attempt, e.Time = adapters.EventCallStarted, n, clock.Now()
			c.Observer.Observe(ctx, e)
		}
		req, err := newReq(ctx)
		if err != nil {
			// A classified error (credentials that cannot be had) is
			// returned as it is; anything else is a request that could
			// not be built.
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) {
				ae = canonical.NewError(canonical.ErrInvalidRequest, "", "building request: %v", err)
				ae.Err = err
			}
			if ae.Provider == "" {
				ae.Provider = c.Provider
			}
			ae.RequestID, ae.Attempts = requestID, n-1
			c.failed(ctx, ev, clock, n, 0, ae, false)
			return nil, nil, 0, ae
		}
		if opt.idleHeaders {
			opt.idle.arm()
		}
		resp, err := c.Client.Do(req)
		var (
			ae   *canonical.AdapterError
			body []byte
		)
		switch {
		case err != nil:
			ae = NetworkError(ctx, c.Provider, err)
		case resp.StatusCode >= 200 && resp.StatusCode < 300 && opt.readBody:
			if body, ae = readBody(ctx, c.Provider, resp, opt.maxBody, opt.idle); ae == nil {
				c.observe(adapters.Attempt{RequestID: requestID, N: n, Status: resp.StatusCode})
				return resp, body, n, nil
			}
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			c.observe(adapters.Attempt{RequestID: requestID, N: n, Status: resp.StatusCode})
			return resp, nil, n, nil
		default:
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			classify := c.Classify
			if classify == nil {
				classify = DefaultClassify
			}
			ae = classify(resp.StatusCode, resp.Header, body)
			ae.Status = resp.StatusCode
			if ae.RetryAfter == 0 {
				ae.RetryAfter = RetryAfter(resp.Header, clock.Now())
			}
			ae.RetryAfter = min(max(ae.RetryAfter, 0), MaxRetryAfter)
			if ae.ProviderRequestID == "" {
				ae.ProviderRequestID = providerRequestID(resp.Header)
			}
			if resp.Header.Get("x-should-retry") == "false" {
				// The provider says a retry cannot help. The header never
				// makes a non-transient class retryable: retries follow
				// the class (000 §6.4).
				ae.Retryable = false
			}
		}
		if ae.Provider == "" {
			ae.Provider = c.Provider
		}
		ae.RequestID, ae.Attempts = requestID, n
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		if opt.idleHeaders {
			opt.idle.pause() // no waiting for the server during the backoff
		}
		if status == http.StatusUnauthorized && !reauthorized && c.Reauthorize != nil && ctx.Err() == nil && c.Reauthorize(req) {
			// A credential that expired or was revoked before its time:
			// once, with a new one, at once.
			reauthorized = true
			attempts++
			c.observe(adapters.Attempt{RequestID: requestID, N: n, Status: status, Err: ae})
			if c.Observer != nil {
				c.failed(ctx, ev, clock, n, status, ae, true)
			}
			continue
		}
		if !ae.Retryable || n >= attempts || ctx.Err() != nil {
			c.observe(adapters.Attempt{RequestID: requestID, N: n, Status: status, Err: ae})
			c.failed(ctx, ev, clock, n, status, ae, false)
			return nil, nil, 0, ae
		}
		wait := c.backoff(n)
		if ae.RetryAfter > 0 {
			wait = ae.RetryAfter
		}
		c.observe(adapters.Attempt{RequestID: requestID, N: n, Status: status, Err: ae, Wait: wait})
		if c.Observer != nil {
			c.failed(ctx, ev, clock, n, status, ae, true)
			e := *ev
			e.Type, e.Attempt, e.Time, e.Wait, e.Err, e.ErrorClass = adapters.EventRetryScheduled, n, clock.Now(), wait, ae, ae.Class
			c.Observer.Observe(ctx, e)
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			ne := NetworkError(ctx, c.Provider, err)
			ne.RequestID, ne.Attempts = requestID, n
			c.failed(ctx, ev, clock, n, 0, ne, false)
			return nil, nil, 0, ne
		}
	}
}

// failed emits llm.call_failed for attempt n.
func (c *Caller) failed(ctx context.Context, ev *adapters.Event, clock adapters.Clock, n, status int, ae *canonical.AdapterError, retry bool) {
	if c.Observer == nil {
		return
	}
	e := *ev
	e.Type, e.Attempt, e.Status, e.Err, e.ErrorClass, e.WillRetry = adapters.EventCallFailed, n, status, ae, ae.Class, retry
	e.Time = clock.Now()
	e.Latency = e.Time.Sub(ev.Time)
	c.Observer.Observe(ctx, e)
}

func (c *Caller) observe(a adapters.Attempt) {
	if c.OnAttempt != nil {
		c.OnAttempt(a)
	}
}

// backoff returns the wait after failed attempt n (1-based).
func (c *Caller) backoff(n int) time.Duration {
	base, maxd := c.BaseDelay, c.MaxDelay
	if base <= 0 {
		base = time.Second
	}
	if maxd <= 0 {
		maxd = 30 * time.Second
	}
	d := base
	for i := 1; i < n && d < maxd; i++ {
		d *= 2
	}
	d = min(d, maxd)
	j := c.Jitter
	if j == nil {
		if cj, ok := c.Clock.(interface{ Jitter() float64 }); ok {
			j = cj.Jitter
		} else {
			j = rand.Float64
		}
	}
	return d + time.Duration(j()*float64(d)/4)
}

// RetryAfter reads a provider's retry hint: retry-after-ms (milliseconds),
// else Retry-After as seconds or as an HTTP date. It returns 0 when there
// is none and caps the result at MaxRetryAfter: a value too large for a
// time.Duration, or one that is not finite (Inf, NaN), is the maximum
// wait, never 0.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			d = retryDelay(ms, time.Millisecond) // ms/1000 as seconds would lose a nanosecond (1001 ms)
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); d == 0 && v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			d = RetryDelay(s)
		} else if t, err := http.ParseTime(v); err == nil {
			d = min(max(t.Sub(now), 0), MaxRetryAfter)
		}
	}
	return d
}

// RetryDelay turns a provider's retry hint in seconds into a wait: 0 for
// a hint of zero or less (no hint), else the hint capped at
// MaxRetryAfter. NaN and +Inf, and any value too large for a
// time.Duration, are the maximum wait: a broken hint still means "wait".
func RetryDelay(seconds float64) time.Duration { return retryDelay(seconds, time.Second) }

// retryDelay is RetryDelay for a hint of v units.
func retryDelay(v float64, unit time.Duration) time.Duration {
	switch {
	case math.IsNaN(v) || v >= float64(MaxRetryAfter/unit):
		return MaxRetryAfter
	case v <= 0:
		return 0
	}
	return time.Duration(v * float64(unit))
}

func providerRequestID(h http.Header) string {
	for _, k := range []string{"request-id", "x-request-id", "openai-request-id"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// NetworkError classifies a failure that produced no HTTP response: the
// caller's cancellation is cancelled, a deadline is network/timeout, and
// DNS, refused connections, resets and TLS failures are network.
func NetworkError(ctx context.Context, provider string, err error) *canonical.AdapterError {
	var ae *canonical.AdapterError
	if errors.As(err, &ae) {
		return ae
	}
	if ae := idleError(ctx, provider); ae != nil {
		return ae
	}
	switch {
	case timedOut(ctx):
		ae = canonical.NewError(canonical.ErrNetwork, canonical.CodeTimeout, "request timed out")
	case errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled):
		ae = canonical.NewError(canonical.ErrCancelled, "", "request cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		ae = canonical.NewError(canonical.ErrNetwork, canonical.CodeTimeout, "request timed out")
	default:
		ae = canonical.NewError(canonical.ErrNetwork, "", "%v", err)
	}
	ae.Provider = provider
	ae.Err = err
	return ae
}
