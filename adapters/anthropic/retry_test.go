package anthropic

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

var overloaded = serve(529, "application/json", []byte(errorBody("overloaded_error", "Overloaded")))

// hangUp closes the connection without answering: a network failure.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// recordAttempts returns a config option that records every attempt.
func recordAttempts(into *[]adapters.Attempt, mu *sync.Mutex) func(*adapters.Config) {
	return func(c *adapters.Config) {
		c.OnAttempt = func(a adapters.Attempt) {
			mu.Lock()
			*into = append(*into, a)
			mu.Unlock()
		}
	}
}

// TestRetryOverloaded is 000 §9.3: two 529s, then success, invisible to
// the caller; backoff 1 s then 2 s (jitter pinned to 0).
func TestRetryOverloaded(t *testing.T) {
	stream := sse(evStart, evTextStart, evTextHello, evStop0, messageDelta("end_turn"), evMsgStop)
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "complete", true: "stream"}[streaming]
		t.Run(name, func(t *testing.T) {
			var (
				mu       sync.Mutex
				attempts []adapters.Attempt
			)
			ok := serve(200, "application/json", okBody)
			if streaming {
				ok = serve(200, "text/event-stream", stream)
			}
			env := newEnv(t, sequence(overloaded, overloaded, ok), recordAttempts(&attempts, &mu))
			var text string
			if streaming {
				evs, err := adaptertest.Collect(env.a.Stream(t.Context(), textRequest("hi")))
				require.NoError(t, err)
				text = checkInvariants(t, evs).Content.Text()
			} else {
				resp, err := env.a.Complete(t.Context(), textRequest("hi"))
				require.NoError(t, err)
				text = resp.Content.Text()
			}
			assert.NotEmpty(t, text)
			assert.Equal(t, 3, env.requests())
			if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, env.clock.Sleeps()); diff != "" {
				t.Errorf("env.clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, attempts, 3)
			for i, a := range attempts[:2] {
				assert.Equal(t, i+1, a.N)
				assert.Equal(t, 529, a.Status)
				require.NotNil(t, a.Err)
				assert.Equal(t, canonical.ErrRateLimit, a.Err.Class)
				assert.Equal(t, canonical.CodeOverloaded, a.Err.Code)
			}
			assert.Nil(t, attempts[2].Err)
			assert.Equal(t, 200, attempts[2].Status)
		})
	}
}

func TestRetryExhausted(t *testing.T) {
	env := newEnv(t, overloaded)
	_, err := env.a.Complete(t.Context(), textRequest("hi"))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrRateLimit, ae.Class)
	assert.True(t, ae.Retryable, "a transient class stays marked retryable")
	assert.Equal(t, 3, ae.Attempts, "1 + max_retries")
	assert.Equal(t, 3, env.requests())
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, env.clock.Sleeps()); diff != "" {
		t.Errorf("env.clock.Sleeps() mismatch (-want +got):\n%s", diff)
	}
}

func TestRetryTransientClasses(t *testing.T) {
	tests := []struct {
		name  string
		first http.HandlerFunc
	}{
		{"rate_limit", serve(429, "application/json", []byte(errorBody("rate_limit_error", "slow down")))},
		{"server_error", serve(500, "application/json", []byte(errorBody("api_error", "boom")))},
		{"network", hangUp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, sequence(tt.first, serve(200, "application/json", okBody)))
			resp, err := env.a.Complete(t.Context(), textRequest("hi"))
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Content.Text())
			assert.Equal(t, 2, env.requests())
			if diff := cmp.Diff([]time.Duration{time.Second}, env.clock.Sleeps()); diff != "" {
				t.Errorf("env.clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoRetry(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"auth", serve(401, "application/json", []byte(errorBody("authentication_error", "invalid x-api-key")))},
		{"invalid request", serve(400, "application/json", []byte(errorBody("invalid_request_error", "bad")))},
		{"x-should-retry false", serve(529, "application/json", []byte(errorBody("overloaded_error", "Overloaded")), "x-should-retry", "false")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, tt.handler)
			_, err := env.a.Complete(t.Context(), textRequest("hi"))
			require.Error(t, err)
			assert.Equal(t, 1, env.requests())
			assert.Empty(t, env.clock.Sleeps())
		})
	}
}

// TestRetryAfterHonoured checks each form of the provider's hint, capped
// at 60 s.
func TestRetryAfterHonoured(t *testing.T) {
	now := adaptertest.NewClock(clockStart).Now()
	tests := []struct {
		name    string
		headers []string
		want    time.Duration
	}{
		{"seconds", []string{"Retry-After", "3"}, 3 * time.Second},
		{"milliseconds", []string{"retry-after-ms", "1500"}, 1500 * time.Millisecond},
		{"http date", []string{"Retry-After", now.Add(5 * time.Second).Format(http.TimeFormat)}, 5 * time.Second},
		{"capped", []string{"Retry-After", "120"}, 60 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limited := serve(429, "application/json", []byte(errorBody("rate_limit_error", "slow down")), tt.headers...)
			env := newEnv(t, sequence(limited, serve(200, "application/json", okBody)))
			_, err := env.a.Complete(t.Context(), textRequest("hi"))
			require.NoError(t, err)
			if diff := cmp.Diff([]time.Duration{tt.want}, env.clock.Sleeps()); diff != "" {
				t.Errorf("env.clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
