package openai

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/canonical"
)

// TestClassifyChat covers 000 §10.1 checks 8 (every class an HTTP answer
// can produce) and 9 (413, 429, 529, 401 with various body shapes).
func TestClassifyChat(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		class     canonical.ErrorClass
		code      string
		retryable bool
		msg       string
		retry     time.Duration
	}{
		{name: "401 invalid_api_key", status: 401,
			body:  `{"error":{"message":"Incorrect API key provided: sk-test-****. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			class: canonical.ErrAuth, msg: "Incorrect API key provided"},
		{name: "401 empty body", status: 401, body: ``, class: canonical.ErrAuth, msg: "Unauthorized"},
		{name: "401 HTML", status: 401, body: `<html><body>401 Authorization Required</body></html>`, class: canonical.ErrAuth, msg: "401 Authorization Required"},
		{name: "403 region", status: 403, body: `{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}}`,
			class: canonical.ErrAuth, msg: "Country, region"},
		{name: "404 model_not_found", status: 404,
			body:  `{"error":{"message":"The model ` + "`gpt-9`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound, msg: "does not exist"},
		{name: "404 vLLM shape", status: 404, body: `{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound, msg: "does not exist"},
		{name: "404 Ollama shape", status: 404, body: `{"error":"model 'llama9' not found, try pulling it first"}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound, msg: "not found"},
		{name: "408", status: 408, body: ``, class: canonical.ErrNetwork, retryable: true, msg: "Request Timeout"},
		{name: "413", status: 413, body: `{"error":{"message":"Request too large.","type":"invalid_request_error"}}`, class: canonical.ErrContextOverflow, msg: "Request too large."},
		{name: "413 plain text", status: 413, body: `Payload Too Large`, class: canonical.ErrContextOverflow, msg: "Payload Too Large"},
		{name: "400 context_length_exceeded", status: 400,
			body:  `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			class: canonical.ErrContextOverflow, msg: "maximum context length"},
		{name: "400 Responses context window", status: 400,
			body:  `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			class: canonical.ErrContextOverflow, msg: "context window"},
		{name: "400 No tool output found", status: 400,
			body:  `{"error":{"message":"No tool output found for function call call_abc.","type":"invalid_request_error","param":"input","code":null}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeToolCallState, msg: "No tool output found"},
		{name: "400 No tool call found", status: 400,
			body:  `{"error":{"message":"No tool call found for function call output with call_id call_abc.","type":"invalid_request_error","param":"input","code":null}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeToolCallState},
		{name: "400 chat tool messages", status: 400,
			body:  `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_x","type":"invalid_request_error","param":"messages.[2].role","code":null}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeToolCallState},
		{name: "400 strict schema (function)", status: 400,
			body:  `{"error":{"message":"Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'unit'.","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeStrictSchemaRejected, msg: "Invalid schema for function"},
		{name: "400 strict schema (response_format)", status: 400,
			body:  `{"error":{"message":"Invalid schema for response_format 'output': In context=(), 'additionalProperties' is required to be supplied and to be false.","type":"invalid_request_error","param":"text.format.schema","code":"invalid_json_schema"}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeStrictSchemaRejected},
		{name: "400 reasoning pairing", status: 400,
			body:  `{"error":{"message":"Item 'rs_1' of type 'reasoning' was provided without its required following item.","type":"invalid_request_error","param":"input","code":null}}`,
			class: canonical.ErrInvalidRequest, code: canonical.CodeInvalidHistory},
		{name: "400 plain", status: 400, body: `{"error":{"message":"Unsupported parameter: 'temperature'","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}}`,
			class: canonical.ErrInvalidRequest, msg: "Unsupported parameter"},
		{name: "422 array body (Gemini compat)", status: 422, body: `[{"error":{"code":422,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}]`,
			class: canonical.ErrInvalidRequest, msg: "Invalid JSON payload"},
		{name: "429 rate limit with body hint", status: 429,
			body:  `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500. Please try again in 1.898s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			class: canonical.ErrRateLimit, retryable: true, retry: 1898 * time.Millisecond},
		{name: "429 hint in ms", status: 429, body: `{"error":{"message":"Please try again in 20ms.","type":"requests","code":"rate_limit_exceeded"}}`,
			class: canonical.ErrRateLimit, retryable: true, retry: 20 * time.Millisecond},
		{name: "429 header wins over body hint", status: 429, header: http.Header{"Retry-After": {"3"}},
			body:  `{"error":{"message":"Please try again in 1.898s.","type":"tokens","code":"rate_limit_exceeded"}}`,
			class: canonical.ErrRateLimit, retryable: true},
		{name: "429 hint capped at 60s", status: 429, body: `{"error":{"message":"Please try again in 600s."}}`,
			class: canonical.ErrRateLimit, retryable: true, retry: time.Minute},
		{name: "429 hint overflowing a duration is capped, not dropped", status: 429, body: `{"error":{"message":"Please try again in 99999999999999999999s."}}`,
			class: canonical.ErrRateLimit, retryable: true, retry: time.Minute},
		{name: "429 hint overflowing in ms is capped", status: 429, body: `{"error":{"message":"Please try again in 9999999999999999999999ms."}}`,
			class: canonical.ErrRateLimit, retryable: true, retry: time.Minute},
		{name: "429 empty body", status: 429, body: ``, class: canonical.ErrRateLimit, retryable: true, msg: "Too Many Requests"},
		{name: "429 insufficient_quota is not transient", status: 429,
			body:  `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			class: canonical.ErrRateLimit, code: canonical.CodeQuotaExceeded, retryable: false, msg: "exceeded your current quota"},
		{name: "500", status: 500, body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			class: canonical.ErrServer, retryable: true, msg: "The server had an error"},
		{name: "503 HTML", status: 503, body: `<html>Service Unavailable</html>`, class: canonical.ErrServer, retryable: true},
		{name: "529 overloaded", status: 529, body: `{"error":{"message":"Overloaded","type":"overloaded_error"}}`, class: canonical.ErrServer, retryable: true, msg: "Overloaded"},
		{name: "302 unexpected", status: 302, body: ``, class: canonical.ErrOther, msg: "Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.header
			if h == nil {
				h = http.Header{}
			}
			ae := ClassifyChat(tc.status, h, []byte(tc.body))
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.retryable, ae.Retryable)
			assert.Equal(t, tc.status, ae.Status)
			assert.Contains(t, ae.Message, tc.msg)
			assert.Equal(t, tc.retry, ae.RetryAfter)
		})
	}
}
