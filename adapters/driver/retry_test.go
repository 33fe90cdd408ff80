package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// fakeClock records sleeps instead of waiting. When block is set, Sleep
// signals on slept and waits for ctx to be done.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	block  bool
	slept  chan struct{}
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC), slept: make(chan struct{}, 16)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	block := c.block
	c.mu.Unlock()
	c.slept <- struct{}{}
	if block {
		<-ctx.Done()
	}
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// reply is one scripted HTTP response; hangup closes the connection
// without answering.
type reply struct {
	status int
	header map[string]string
	body   string
	hangup bool
}

// scriptServer answers requests with replies in order, repeating the
// last one, and counts requests.
type scriptServer struct {
	*httptest.Server
	replies []reply
	n       atomic.Int32
}

func newScriptServer(t *testing.T, replies ...reply) *scriptServer {
	t.Helper()
	s := &scriptServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(s.n.Add(1)) - 1
		rep := s.replies[min(i, len(s.replies)-1)]
		if rep.hangup {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.status)
		w.Write([]byte(rep.body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptServer) requests() int { return int(s.n.Load()) }

func (s *scriptServer) newReq(ctx context.Context) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", nil)
}

func newTestCaller(s *scriptServer, maxRetries int, clock adapters.Clock) (*Caller, *[]adapters.Attempt) {
	var (
		mu       sync.Mutex
		attempts []adapters.Attempt
	)
	c := &Caller{
		Provider:   "test",
		Client:     s.Client(),
		MaxRetries: maxRetries,
		Clock:      clock,
		Jitter:     func() float64 { return 0 },
		OnAttempt: func(a adapters.Attempt) {
			mu.Lock()
			defer mu.Unlock()
			attempts = append(attempts, a)
		},
	}
	return c, &attempts
}

func TestCallerTotalAttempts(t *testing.T) {
	for _, maxRetries := range []int{0, 1, 2, 3} {
		t.Run(strconv.Itoa(maxRetries), func(t *testing.T) {
			srv := newScriptServer(t, reply{status: 500, body: "boom"})
			clock := newFakeClock()
			c, attempts := newTestCaller(srv, maxRetries, clock)

			resp, err := c.Do(context.Background(), "req_1", srv.newReq)
			require.Nil(t, resp)
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrServer, ae.Class)
			assert.True(t, ae.Retryable, "a transient class stays retryable after retries run out")
			assert.Equal(t, 500, ae.Status)
			assert.Equal(t, 1+maxRetries, ae.Attempts)
			assert.Equal(t, "req_1", ae.RequestID)
			assert.Equal(t, "test", ae.Provider)
			assert.Equal(t, 1+maxRetries, srv.requests())
			assert.Len(t, clock.Sleeps(), maxRetries)
			require.Len(t, *attempts, 1+maxRetries)
			last := (*attempts)[maxRetries]
			assert.Equal(t, 1+maxRetries, last.N)
			assert.Zero(t, last.Wait, "no wait after the last attempt")
		})
	}
}

func TestCallerSucceedsAfterTransientFailures(t *testing.T) {
	srv := newScriptServer(t,
		reply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error"}}`},
		reply{hangup: true},
		reply{status: 200, body: "ok"},
	)
	clock := newFakeClock()
	c, attempts := newTestCaller(srv, 2, clock)

	resp, err := c.Do(context.Background(), "req_1", srv.newReq)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, 3, srv.requests())
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, clock.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}

	got := *attempts
	require.Len(t, got, 3)
	assert.Equal(t, 1, got[0].N)
	assert.Equal(t, 529, got[0].Status)
	require.NotNil(t, got[0].Err)
	assert.Equal(t, canonical.ErrServer, got[0].Err.Class)
	assert.Equal(t, time.Second, got[0].Wait)
	assert.Equal(t, 2, got[1].N)
	assert.Equal(t, 0, got[1].Status, "a dropped connection has no status")
	require.NotNil(t, got[1].Err)
	assert.Equal(t, canonical.ErrNetwork, got[1].Err.Class)
	if diff := cmp.Diff(adapters.Attempt{RequestID: "req_1", N: 3, Status: 200}, got[2]); diff != "" {
		t.Errorf("third attempt (-want +got):\n%s", diff)
	}
}

func TestCallerBackoff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		jitter float64
		want   []time.Duration
	}{
		// 1 s doubling, capped at 30 s.
		{"no jitter", 0, []time.Duration{1, 2, 4, 8, 16, 30, 30}},
		// plus jitter × 25%.
		{"half jitter", 0.5, []time.Duration{1125, 2250, 4500, 9000, 18000, 33750, 33750}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newScriptServer(t, reply{status: 503})
			clock := newFakeClock()
			c, _ := newTestCaller(srv, 7, clock)
			c.Jitter = func() float64 { return tc.jitter }
			_, err := c.Do(context.Background(), "r", srv.newReq)
			require.Error(t, err)
			unit := time.Second
			if tc.jitter != 0 {
				unit = time.Millisecond
			}
			want := make([]time.Duration, len(tc.want))
			for i, w := range tc.want {
				want[i] = w * unit
			}
			if diff := cmp.Diff(want, clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("random jitter stays in bounds", func(t *testing.T) {
		srv := newScriptServer(t, reply{status: 503})
		clock := newFakeClock()
		c, _ := newTestCaller(srv, 6, clock)
		c.Jitter = nil // math/rand
		_, err := c.Do(context.Background(), "r", srv.newReq)
		require.Error(t, err)
		base := []time.Duration{1, 2, 4, 8, 16, 30}
		sleeps := clock.Sleeps()
		require.Len(t, sleeps, len(base))
		for i, d := range sleeps {
			lo := base[i] * time.Second
			assert.GreaterOrEqual(t, d, lo, "sleep %d", i)
			assert.Less(t, d, lo+lo/4, "sleep %d", i)
		}
	})

	t.Run("many attempts do not overflow", func(t *testing.T) {
		c := &Caller{Jitter: func() float64 { return 0 }}
		for _, n := range []int{31, 63, 64, 65, 1000} {
			assert.Equal(t, 30*time.Second, c.backoff(n), "attempt %d", n)
		}
	})
}

func TestCallerRetryAfter(t *testing.T) {
	now := newFakeClock().Now()
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(5 * time.Second).Format(http.TimeFormat)}, 5 * time.Second},
		{"retry-after-ms", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"retry-after-ms wins", map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{"capped at 60 s", map[string]string{"Retry-After": "3600"}, 60 * time.Second},
		{"overflowing seconds wait the maximum", map[string]string{"Retry-After": "99999999999999999999"}, 60 * time.Second},
		{"infinite ms wait the maximum", map[string]string{"retry-after-ms": "inf"}, 60 * time.Second},
		{"date capped at 60 s", map[string]string{"Retry-After": now.Add(time.Hour).Format(http.TimeFormat)}, 60 * time.Second},
		{"past date falls back to backoff", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, time.Second},
		{"garbage falls back to backoff", map[string]string{"Retry-After": "soon"}, time.Second},
		{"zero falls back to backoff", map[string]string{"Retry-After": "0"}, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newScriptServer(t, reply{status: 429, header: tc.header}, reply{status: 200})
			clock := newFakeClock()
			c, attempts := newTestCaller(srv, 2, clock)
			resp, err := c.Do(context.Background(), "r", srv.newReq)
			require.NoError(t, err)
			resp.Body.Close()
			if diff := cmp.Diff([]time.Duration{tc.want}, clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			require.NotEmpty(t, *attempts)
			assert.Equal(t, tc.want, (*attempts)[0].Wait)
		})
	}
}

func TestCallerRetryAfterFromBodyIsCapped(t *testing.T) {
	srv := newScriptServer(t, reply{status: 429})
	clock := newFakeClock()
	c, _ := newTestCaller(srv, 1, clock)
	c.Classify = func(status int, _ http.Header, _ []byte) *canonical.AdapterError {
		ae := HTTPError(canonical.ErrRateLimit, "", status, "quota")
		ae.RetryAfter = 90 * time.Second // e.g. a google.rpc.RetryInfo
		return ae
	}
	_, err := c.Do(context.Background(), "r", srv.newReq)
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	if diff := cmp.Diff([]time.Duration{60 * time.Second}, clock.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	assert.Equal(t, 60*time.Second, ae.RetryAfter)
}

func TestCallerNoRetry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply reply
		class canonical.ErrorClass
	}{
		{"400 invalid_request", reply{status: 400}, canonical.ErrInvalidRequest},
		{"404 invalid_request", reply{status: 404}, canonical.ErrInvalidRequest},
		{"401 auth", reply{status: 401}, canonical.ErrAuth},
		{"403 auth", reply{status: 403}, canonical.ErrAuth},
		{"413 context_overflow", reply{status: 413}, canonical.ErrContextOverflow},
		{"x-should-retry false on 500", reply{status: 500, header: map[string]string{"x-should-retry": "false"}}, canonical.ErrServer},
		{"x-should-retry true does not make 400 retryable", reply{status: 400, header: map[string]string{"x-should-retry": "true"}}, canonical.ErrInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newScriptServer(t, tc.reply, reply{status: 200})
			clock := newFakeClock()
			c, attempts := newTestCaller(srv, 2, clock)
			_, err := c.Do(context.Background(), "r", srv.newReq)
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.False(t, ae.Retryable)
			assert.Equal(t, 1, ae.Attempts)
			assert.Equal(t, 1, srv.requests())
			assert.Empty(t, clock.Sleeps())
			assert.Len(t, *attempts, 1)
		})
	}
}

func TestCallerXShouldRetryTrue(t *testing.T) {
	srv := newScriptServer(t, reply{status: 529, header: map[string]string{"x-should-retry": "true"}}, reply{status: 200})
	c, _ := newTestCaller(srv, 2, newFakeClock())
	resp, err := c.Do(context.Background(), "r", srv.newReq)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 2, srv.requests())
}

func TestCallerProviderRequestID(t *testing.T) {
	srv := newScriptServer(t, reply{status: 400, header: map[string]string{"request-id": "req_011CQ"}})
	c, _ := newTestCaller(srv, 0, newFakeClock())
	_, err := c.Do(context.Background(), "r", srv.newReq)
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "req_011CQ", ae.ProviderRequestID)
}

func TestCallerBuildError(t *testing.T) {
	c := &Caller{Provider: "test", Client: http.DefaultClient}
	boom := errors.New("bad body")
	_, err := c.Do(context.Background(), "r", func(context.Context) (*http.Request, error) { return nil, boom })
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
	assert.Equal(t, 0, ae.Attempts)
	assert.ErrorIs(t, err, boom)
}

func TestCallerCancelledDuringBackoff(t *testing.T) {
	srv := newScriptServer(t, reply{status: 503}, reply{status: 200})
	clock := newFakeClock()
	clock.block = true
	c, _ := newTestCaller(srv, 2, clock)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	errc := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, "r", srv.newReq)
		errc <- err
	}()
	<-clock.slept // Do is now in its first backoff sleep
	cancel()
	err := <-errc
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrCancelled, ae.Class)
	assert.Equal(t, 1, ae.Attempts)
	assert.Equal(t, 1, srv.requests(), "no attempt after the cancellation")
}

// deadlineCtx is a context whose deadline the test triggers by hand.
type deadlineCtx struct {
	context.Context
	mu   sync.Mutex
	done chan struct{}
	err  error
}

func newDeadlineCtx() *deadlineCtx {
	return &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *deadlineCtx) expire() {
	c.mu.Lock()
	c.err = context.DeadlineExceeded
	c.mu.Unlock()
	close(c.done)
}

func TestCallerDeadlineDuringBackoff(t *testing.T) {
	srv := newScriptServer(t, reply{status: 503})
	clock := newFakeClock()
	clock.block = true
	c, _ := newTestCaller(srv, 2, clock)
	ctx := newDeadlineCtx()

	errc := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, "r", srv.newReq)
		errc <- err
	}()
	<-clock.slept
	ctx.expire()
	err := <-errc
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrNetwork, ae.Class)
	assert.Equal(t, canonical.CodeTimeout, ae.Code)
	assert.Equal(t, 1, srv.requests())
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"spaces", http.Header{"Retry-After": {" 3 "}}, 3 * time.Second},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"date", http.Header{"Retry-After": {"Thu, 14 May 2026 12:00:30 GMT"}}, 30 * time.Second},
		{"ms", http.Header{"Retry-After-Ms": {"20"}}, 20 * time.Millisecond},
		{"bad ms falls back", http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"1"}}, time.Second},
		{"cap", http.Header{"Retry-After-Ms": {"600000"}}, MaxRetryAfter},
		// Values too large for a time.Duration, or not finite, are capped
		// at the maximum wait: they used to overflow to a negative
		// duration and be read as no hint at all.
		{"seconds overflow", http.Header{"Retry-After": {"99999999999999999999"}}, MaxRetryAfter},
		{"seconds beyond int64 ns", http.Header{"Retry-After": {"9300000000"}}, MaxRetryAfter},
		{"ms overflow", http.Header{"Retry-After-Ms": {"1e300"}}, MaxRetryAfter},
		{"ms infinite", http.Header{"Retry-After-Ms": {"+Inf"}}, MaxRetryAfter},
		{"ms NaN", http.Header{"Retry-After-Ms": {"NaN"}}, MaxRetryAfter},
		{"seconds infinite", http.Header{"Retry-After": {"Infinity"}}, MaxRetryAfter},
		{"seconds NaN", http.Header{"Retry-After": {"nan"}}, MaxRetryAfter},
		{"negative infinity is no hint", http.Header{"Retry-After": {"-Inf"}}, 0},
		{"far date", http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, MaxRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, RetryAfter(tc.h, now))
		})
	}
}
