package openaicompat

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

const loadingBody = `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`

// TestRetry: 000 §10.1.10 — transient failures are retried with backoff
// on the injected clock, others are not.
func TestRetry(t *testing.T) {
	ok := reply{body: ollamaPersona.body(false, "ok", nil, usage24x8)}
	cases := []struct {
		name     string
		replies  []reply
		attempts int
		sleeps   int
		wantErr  canonical.ErrorClass
		wantCode string
	}{
		{"model loading, then served", []reply{{status: 503, body: loadingBody}, {status: 503, body: loadingBody}, ok}, 3, 2, "", ""},
		{"server errors exhaust the retries", []reply{{status: 500}, {status: 502}, {status: 500}}, 3, 2, canonical.ErrServer, ""},
		{"still loading after the retries", []reply{{status: 503, body: loadingBody}}, 3, 2, canonical.ErrServer, canonical.CodeModelNotLoaded},
		{"rate limit, then served", []reply{{status: 429, body: `{"error":"slow down"}`}, ok}, 2, 1, "", ""},
		{"auth is not retried", []reply{{status: 401, body: `{"error":"bad key"}`}, ok}, 1, 0, canonical.ErrAuth, ""},
		{"unknown model is not retried", []reply{{status: 404, body: ollamaPersona.notFound}, ok}, 1, 0, canonical.ErrInvalidRequest, canonical.CodeModelNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, tc.replies...)
			env := newEnv()
			cfg := newConfig(KindOllama, srv.URL, env)
			cfg.MaxRetries = 2
			var mu sync.Mutex
			var statuses []int
			cfg.OnAttempt = func(at adapters.Attempt) {
				mu.Lock()
				statuses = append(statuses, at.Status)
				mu.Unlock()
			}
			a := mustNew(t, cfg)
			_, err := a.Complete(context.Background(), request(ollamaPersona.model, userMsg("hi")))
			assert.Len(t, srv.requests(chatRoute), tc.attempts)
			assert.Len(t, env.clock.Sleeps(), tc.sleeps)
			assert.Len(t, statuses, tc.attempts)
			for _, d := range env.clock.Sleeps() {
				assert.GreaterOrEqual(t, d, time.Second, "backoff starts at a second")
			}
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			ae := adapterError(t, err)
			assert.Equal(t, tc.wantErr, ae.Class)
			assert.Equal(t, tc.wantCode, ae.Code)
			assert.Equal(t, tc.attempts, ae.Attempts)
		})
	}
}

// TestRetryAfterHonoured: 000 §10.1.11, each header form, capped at 60 s.
func TestRetryAfterHonoured(t *testing.T) {
	now := clockStart
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"milliseconds", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second},
		{"capped", map[string]string{"Retry-After": "3600"}, 60 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{status: 429, header: tc.header, body: `{"error":"rate limited"}`}, reply{body: vllmPersona.body(false, "ok", nil, usage24x8)})
			env := newEnv()
			cfg := newConfig(KindVLLM, srv.URL, env)
			cfg.MaxRetries = 1
			a := mustNew(t, cfg)
			_, err := a.Complete(context.Background(), request(vllmPersona.model, userMsg("hi")))
			require.NoError(t, err)
			if diff := cmp.Diff([]time.Duration{tc.want}, env.clock.Sleeps()); diff != "" {
				t.Errorf("env.clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatusEdgeCases: 000 §10.1.9.
func TestStatusEdgeCases(t *testing.T) {
	cases := []struct {
		status int
		body   string
		class  canonical.ErrorClass
	}{
		{413, `{"error":"request entity too large"}`, canonical.ErrContextOverflow},
		{400, `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.","type":"BadRequestError","code":400}`, canonical.ErrContextOverflow},
		{429, ``, canonical.ErrRateLimit},
		{529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`, canonical.ErrServer},
		{401, `Unauthorized`, canonical.ErrAuth},
		{408, ``, canonical.ErrNetwork},
		{422, `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`, canonical.ErrInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{status: tc.status, body: tc.body})
			a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
			_, err := a.Complete(context.Background(), request("vllm:m", userMsg("hi")))
			ae := adapterError(t, err)
			assert.Equal(t, tc.class, ae.Class, ae.Error())
			assert.Equal(t, tc.status, ae.Status)
		})
	}
}

// TestCancellation: 000 §10.1.12 — a call cancelled in the middle of a
// tool's input ends that tool with {}, completes the message as
// cancelled, and leaks nothing; by Adapter.Cancel and by the context.
func TestCancellation(t *testing.T) {
	partial := "data: " + chunkHead + `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_c","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}` + "\n\n" +
		"data: " + chunkHead + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Pa"}}]},"finish_reason":null}]}` + "\n\n"
	for _, how := range []string{"Cancel", "context"} {
		t.Run(how, func(t *testing.T) {
			before := goleak.IgnoreCurrent() // taken before the call, checked after it
			srv := newStub(t).on(chatRoute, reply{body: partial, hold: true})
			cfg := newConfig(KindVLLM, srv.URL, newEnv())
			withTools(&cfg, "vllm:m")
			a := mustNew(t, cfg)
			req := request("vllm:m", userMsg("weather?"))
			req.Tools = []canonical.ToolDefinition{weatherTool}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()

			var evs []canonical.StreamEvent
			for ev, err := range a.Stream(ctx, req) {
				require.NoError(t, err, "a cancelled stream yields no error")
				evs = append(evs, ev)
				if ev.Type == canonical.EventToolUseInput {
					if how == "Cancel" {
						assert.True(t, a.Cancel(req.RequestID))
					} else {
						cancel()
					}
				}
			}
			assert.Empty(t, streamcheck.Check(evs))
			ends := adaptertest.EventsOf(evs, canonical.EventToolUseEnd)
			require.Len(t, ends, 1)
			assert.JSONEq(t, `{}`, string(ends[0].FinalInput))
			resp := completed(t, evs)
			assert.Equal(t, canonical.StopCancelled, resp.StopReason)
			assert.True(t, resp.Usage.Estimated, "no usage arrived")
			assert.False(t, a.Cancel(req.RequestID), "cancel is idempotent")
			srv.Close()
			require.NoError(t, a.Close())
			goleak.VerifyNone(t, before)
		})
	}
}
