package anthropic

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

func errorBody(typ, msg string) string {
	return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_011CT"}`
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		class     canonical.ErrorClass
		code      string
		retryable bool
	}{
		{"invalid request", 400, errorBody("invalid_request_error", "messages: roles must alternate"), canonical.ErrInvalidRequest, "", false},
		{"prompt too long", 400, errorBody("invalid_request_error", "prompt is too long: 215000 tokens > 200000 maximum"), canonical.ErrContextOverflow, "", false},
		{"input plus max_tokens over the limit", 400, errorBody("invalid_request_error", "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"), canonical.ErrContextOverflow, "", false},
		{"authentication", 401, errorBody("authentication_error", "invalid x-api-key"), canonical.ErrAuth, "", false},
		{"billing", 402, errorBody("billing_error", "Your credit balance is too low"), canonical.ErrAuth, canonical.CodeQuotaExceeded, false},
		{"permission", 403, errorBody("permission_error", "Your API key does not have permission"), canonical.ErrAuth, "", false},
		{"model not found", 404, errorBody("not_found_error", "model: claude-nonexistent-9"), canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false},
		{"other not found", 404, errorBody("not_found_error", "Not found"), canonical.ErrInvalidRequest, "", false},
		{"request too large", 413, errorBody("request_too_large", "Request exceeds the maximum allowed number of bytes."), canonical.ErrContextOverflow, "", false},
		{"413 from the edge without JSON", 413, `<html><body>413 Request Entity Too Large</body></html>`, canonical.ErrContextOverflow, "", false},
		{"rate limit", 429, errorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), canonical.ErrRateLimit, "", true},
		{"429 without body", 429, ``, canonical.ErrRateLimit, "", true},
		{"api error", 500, errorBody("api_error", "Internal server error"), canonical.ErrServer, "", true},
		{"timeout", 504, errorBody("timeout_error", "Request timeout"), canonical.ErrServer, canonical.CodeTimeout, true},
		{"502 from the edge", 502, `Bad Gateway`, canonical.ErrServer, "", true},
		{"408 is network whatever the body's type", 408, errorBody("invalid_request_error", "Invalid request."), canonical.ErrNetwork, "", true},
		{"408 without body", 408, ``, canonical.ErrNetwork, "", true},
		{"overloaded", 529, errorBody("overloaded_error", "Overloaded"), canonical.ErrRateLimit, canonical.CodeOverloaded, true},
		{"529 without body", 529, ``, canonical.ErrRateLimit, canonical.CodeOverloaded, true},
		{"529 with an unknown type", 529, errorBody("brand_new_error", "x"), canonical.ErrRateLimit, canonical.CodeOverloaded, true},
		{"unknown type uses the status", 409, errorBody("conflict_error", "conflict"), canonical.ErrInvalidRequest, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ae := classify(tt.status, http.Header{}, []byte(tt.body))
			assert.Equal(t, tt.class, ae.Class)
			assert.Equal(t, tt.code, ae.Code)
			assert.Equal(t, tt.retryable, ae.Retryable)
			assert.NotEmpty(t, ae.Message)
		})
	}
}

// TestErrorClassesOverHTTP checks each class end to end, through the
// Caller (status, request ids, attempts) and both call paths.
func TestErrorClassesOverHTTP(t *testing.T) {
	tests := []struct {
		status int
		body   string
		class  canonical.ErrorClass
	}{
		{400, errorBody("invalid_request_error", "bad"), canonical.ErrInvalidRequest},
		{400, errorBody("invalid_request_error", "prompt is too long: 300000 tokens > 200000 maximum"), canonical.ErrContextOverflow},
		{401, errorBody("authentication_error", "invalid x-api-key"), canonical.ErrAuth},
		{413, errorBody("request_too_large", "too large"), canonical.ErrContextOverflow},
		{429, errorBody("rate_limit_error", "slow down"), canonical.ErrRateLimit},
		{500, errorBody("api_error", "boom"), canonical.ErrServer},
		{529, errorBody("overloaded_error", "Overloaded"), canonical.ErrRateLimit},
	}
	for _, tt := range tests {
		t.Run(string(tt.class)+"/"+http.StatusText(tt.status), func(t *testing.T) {
			env := newEnv(t, serve(tt.status, "application/json", []byte(tt.body), "request-id", "req_header"),
				func(c *adapters.Config) { c.MaxRetries = 0 })
			_, err := env.a.Complete(t.Context(), textRequest("hi"))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tt.class, ae.Class)
			assert.Equal(t, tt.status, ae.Status)
			assert.Equal(t, "req_011CT", ae.ProviderRequestID, "the body's request_id wins over the header")
			assert.Equal(t, 1, ae.Attempts)

			_, err = adaptertest.Collect(env.a.Stream(t.Context(), textRequest("hi")))
			assert.Equal(t, tt.class, canonical.ClassOf(err), "a stream request's error arrives as plain JSON")
		})
	}
}

func TestNetworkErrorClass(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", okBody), func(c *adapters.Config) { c.MaxRetries = 0 })
	env.srv.Close() // nothing listens any more
	_, err := env.a.Complete(t.Context(), textRequest("hi"))
	assert.Equal(t, canonical.ErrNetwork, canonical.ClassOf(err))
}

func TestErrorObjectWith200(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", []byte(errorBody("api_error", "boom"))))
	_, err := env.a.Complete(t.Context(), textRequest("hi"))
	assert.Equal(t, canonical.ErrServer, canonical.ClassOf(err))
}

func TestMalformedBody(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", []byte(`{"id":"msg_1","content":[{"type":"text","text":"unterminated`)))
	_, err := env.a.Complete(t.Context(), textRequest("hi"))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeInvalidResponse, ae.Code)
	assert.Contains(t, ae.Message, "decoding response body")
}
