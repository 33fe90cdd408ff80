package gemini

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

var okBody = []byte(`{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1}}`)

// hangUp is a reply that drops the connection without answering.
var hangUp = reply{handler: func(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}}

func TestRetry(t *testing.T) {
	unavailable := jsonReply(503, []byte(statusBody(503, "UNAVAILABLE", "The model is overloaded.")))
	for _, tc := range []struct {
		name     string
		replies  []reply
		ok       bool
		class    canonical.ErrorClass
		sleeps   []time.Duration
		attempts int
	}{
		{
			name:     "429 with RetryInfo waits the given delay",
			replies:  []reply{jsonReply(429, readFixture(t, "error-429-resource-exhausted-retryinfo", "response.json")), jsonReply(200, okBody)},
			ok:       true,
			sleeps:   []time.Duration{34400 * time.Millisecond},
			attempts: 2,
		},
		{
			name:     "server errors back off exponentially",
			replies:  []reply{unavailable, jsonReply(500, []byte(statusBody(500, "INTERNAL", "boom"))), jsonReply(200, okBody)},
			ok:       true,
			sleeps:   []time.Duration{time.Second, 2 * time.Second},
			attempts: 3,
		},
		{
			name:     "network failure is retried",
			replies:  []reply{hangUp, jsonReply(200, okBody)},
			ok:       true,
			sleeps:   []time.Duration{time.Second},
			attempts: 2,
		},
		{
			name:     "retries are bounded",
			replies:  []reply{unavailable},
			class:    canonical.ErrServer,
			sleeps:   []time.Duration{time.Second, 2 * time.Second},
			attempts: 3,
		},
		{
			name:     "invalid requests are not retried",
			replies:  []reply{jsonReply(400, []byte(statusBody(400, "INVALID_ARGUMENT", "bad")))},
			class:    canonical.ErrInvalidRequest,
			attempts: 1,
		},
		{
			name:     "auth failures are not retried",
			replies:  []reply{jsonReply(403, readFixture(t, "error-403-permission-denied", "response.json"))},
			class:    canonical.ErrAuth,
			attempts: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.replies...)
			resp, err := e.a.Complete(context.Background(), userRequest(testModel, "hi"))
			if tc.ok {
				require.NoError(t, err)
				if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "ok"}}, resp.Content); diff != "" {
					t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
				}
			} else {
				var ae *canonical.AdapterError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, tc.class, ae.Class)
				assert.Equal(t, tc.attempts, ae.Attempts)
			}
			if diff := cmp.Diff(tc.sleeps, e.clock.Sleeps()); diff != "" {
				t.Errorf("e.clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
			assert.Len(t, e.Requests(), tc.attempts)
		})
	}
}

// TestRetryAfterHonoured covers each form of retry hint: RetryInfo in the
// body (which wins), Retry-After seconds, Retry-After as an HTTP date,
// retry-after-ms, and the 60 s cap.
func TestRetryAfterHonoured(t *testing.T) {
	now := adaptertest.NewClock(clockStart).Now()
	limited := func(header map[string]string, body string) reply {
		r := jsonReply(429, []byte(body))
		for k, v := range header {
			r.header[k] = v
		}
		return r
	}
	plain := statusBody(429, "RESOURCE_EXHAUSTED", "slow down")
	withInfo := `{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`
	for _, tc := range []struct {
		name  string
		reply reply
		want  time.Duration
	}{
		{"RetryInfo", limited(nil, withInfo), 3 * time.Second},
		{"RetryInfo wins over the header", limited(map[string]string{"Retry-After": "9"}, withInfo), 3 * time.Second},
		{"Retry-After seconds", limited(map[string]string{"Retry-After": "2"}, plain), 2 * time.Second},
		{"Retry-After date", limited(map[string]string{"Retry-After": now.Add(5 * time.Second).Format(http.TimeFormat)}, plain), 5 * time.Second},
		{"retry-after-ms", limited(map[string]string{"retry-after-ms": "1500"}, plain), 1500 * time.Millisecond},
		{"capped at 60 s", limited(map[string]string{"Retry-After": "600"}, plain), 60 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.reply, jsonReply(200, okBody))
			_, err := e.a.Complete(context.Background(), userRequest(testModel, "hi"))
			require.NoError(t, err)
			if diff := cmp.Diff([]time.Duration{tc.want}, e.clock.Sleeps()); diff != "" {
				t.Errorf("e.clock.Sleeps() mismatch (-want +got):\n%s", diff)
			}
			require.Len(t, e.attempts, 2)
			assert.Equal(t, tc.want, e.attempts[0].Wait)
			assert.Equal(t, 429, e.attempts[0].Status)
		})
	}
}

// TestStreamRetriedBeforeFirstEvent: a stream is retried only before its
// body; the consumer sees one clean sequence.
func TestStreamRetriedBeforeFirstEvent(t *testing.T) {
	e := newEnv(t, jsonReply(429, readFixture(t, "error-429-resource-exhausted-retryinfo", "response.json")),
		sseReply(readFixture(t, "stream-text-after-function-response", "response.txt")))
	evs, err := adaptertest.Collect(e.a.Stream(context.Background(), userRequest(testModel3, "hi")))
	require.NoError(t, err)
	checkInvariants(t, evs)
	assert.Equal(t, "The capital of Mexico is Mexico City.", final(t, evs).Content.Text())
	if diff := cmp.Diff([]time.Duration{34400 * time.Millisecond}, e.clock.Sleeps()); diff != "" {
		t.Errorf("e.clock.Sleeps() mismatch (-want +got):\n%s", diff)
	}
}
