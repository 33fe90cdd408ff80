package gemini

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/canonical"
)

func statusBody(code int, status, message string) string {
	return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + message + `","status":"` + status + `"}}`
}

// TestClassify covers every error class and the status edge cases of 000
// §10.1 (413, 429, 529, 401) with Gemini and non-Gemini body shapes.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		body       string
		class      canonical.ErrorClass
		code       string
		retryable  bool
		retryAfter time.Duration
		message    string
	}{
		{"401 unauthenticated", 401, statusBody(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
			canonical.ErrAuth, "", false, 0, "invalid authentication"},
		{"401 empty body", 401, "", canonical.ErrAuth, "", false, 0, "Unauthorized"},
		{"403 permission denied", 403, statusBody(403, "PERMISSION_DENIED", "Permission denied."), canonical.ErrAuth, "", false, 0, "Permission denied."},
		{"400 bad API key", 400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",
			"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`,
			canonical.ErrAuth, "", false, 0, "API key not valid"},
		{"400 token limit", 400, statusBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
			canonical.ErrContextOverflow, "", false, 0, "exceeds the maximum number of tokens"},
		{"400 invalid argument", 400, statusBody(400, "INVALID_ARGUMENT", "Invalid value at 'contents[0].parts[0]'"),
			canonical.ErrInvalidRequest, "", false, 0, "Invalid value"},
		{"400 failed precondition", 400, statusBody(400, "FAILED_PRECONDITION", "User location is not supported for the API use."),
			canonical.ErrInvalidRequest, "", false, 0, "User location"},
		{"404 model", 404, statusBody(404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta"),
			canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false, 0, "models/gemini-9"},
		{"413 no body", 413, "", canonical.ErrContextOverflow, "", false, 0, "Request Entity Too Large"},
		{"413 status body", 413, statusBody(413, "INVALID_ARGUMENT", "Request payload size exceeds the limit: 20971520 bytes."),
			canonical.ErrContextOverflow, "", false, 0, "payload size"},
		{"429 with retry info", 429, `{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`,
			canonical.ErrRateLimit, "", true, 7 * time.Second, "Quota exceeded"},
		{"429 retry delay capped", 429, `{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3600s"}]}}`,
			canonical.ErrRateLimit, "", true, 60 * time.Second, "slow down"},
		{"429 fractional delay", 429, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.250s"}]}}`,
			canonical.ErrRateLimit, "", true, 250 * time.Millisecond, "m"},
		{"429 delay overflows a duration", 429, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999999s"}]}}`,
			canonical.ErrRateLimit, "", true, 60 * time.Second, "m"},
		{"429 delay in hours overflows", 429, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1e30s"}]}}`,
			canonical.ErrRateLimit, "", true, 60 * time.Second, "m"},
		{"429 infinite delay", 429, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"Infs"}]}}`,
			canonical.ErrRateLimit, "", true, 60 * time.Second, "m"},
		{"429 malformed delay", 429, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"soon"}]}}`,
			canonical.ErrRateLimit, "", true, 0, "m"},
		{"429 plain text", 429, "Too many requests", canonical.ErrRateLimit, "", true, 0, "Too many requests"},
		{"500 internal", 500, statusBody(500, "INTERNAL", "An internal error has occurred."), canonical.ErrServer, "", true, 0, "internal error"},
		{"503 unavailable", 503, statusBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
			canonical.ErrServer, canonical.CodeOverloaded, true, 0, "overloaded"},
		{"504 deadline", 504, statusBody(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
			canonical.ErrNetwork, canonical.CodeTimeout, true, 0, "Deadline expired"},
		{"408 is network whatever the status", 408, statusBody(400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
			canonical.ErrNetwork, "", true, 0, "invalid argument"},
		{"499 cancelled", 499, statusBody(499, "CANCELLED", "The operation was cancelled."), canonical.ErrNetwork, "", true, 0, "cancelled"},
		{"529 html", 529, "<html>overloaded</html>", canonical.ErrServer, "", true, 0, "overloaded"},
		{"array-wrapped status (streaming endpoint)", 429, `[{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}]`,
			canonical.ErrRateLimit, "", true, 0, "Resource has been exhausted"},
		{"array-wrapped not found", 404, `[{"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}}]`,
			canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false, 0, "models/x"},
		{"empty array", 400, `[]`, canonical.ErrInvalidRequest, "", false, 0, "[]"},
		{"garbage", 502, `{"error":`, canonical.ErrServer, "", true, 0, `{"error":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ae := classify(tc.status, http.Header{}, []byte(tc.body))
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.status, ae.Status)
			assert.Equal(t, tc.retryable, ae.Retryable)
			assert.Equal(t, tc.retryAfter, ae.RetryAfter)
			assert.Contains(t, ae.Message, tc.message)
		})
	}
}
