package faults_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/internal/wire"
)

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		name       string
		url        string
		fault      faults.Fault
		wantStatus int
		wantHeader http.Header
		wantBody   string
	}{
		{
			name:       "anthropic 429 with retry-after",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 429, Header: http.Header{"Retry-After": {"2"}}},
			wantStatus: 429,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"true"}, "Retry-After": {"2"}},
			wantBody:   `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."},"request_id":"req_injected_fault"}`,
		},
		{
			name:       "anthropic overloaded by error kind",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Error: faults.ErrorOverloaded},
			wantStatus: 529,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"true"}},
			wantBody:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_injected_fault"}`,
		},
		{
			// Anthropic documents overloaded_error as 529 and api_error for
			// an unexpected internal error; a 503 is not overload there.
			name:       "anthropic 503 by status is api_error",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 503},
			wantStatus: 503,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"true"}},
			wantBody:   `{"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_injected_fault"}`,
		},
		{
			name:       "anthropic 529 by status is overloaded_error",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 529},
			wantStatus: 529,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"true"}},
			wantBody:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_injected_fault"}`,
		},
		{
			name:       "anthropic 503 asked as overloaded stays overloaded_error",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 503, Error: faults.ErrorOverloaded},
			wantStatus: 503,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"true"}},
			wantBody:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_injected_fault"}`,
		},
		{
			name:       "anthropic 400 context overflow",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 400, Error: faults.ErrorContextOverflow},
			wantStatus: 400,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"false"}},
			wantBody:   `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200001 tokens > 200000 maximum"},"request_id":"req_injected_fault"}`,
		},
		{
			name:       "openai chat 500",
			url:        chatURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 500},
			wantStatus: 500,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
			wantBody:   "{\n    \"error\": {\n        \"message\": \"The server had an error while processing your request. Sorry about that!\",\n        \"type\": \"server_error\",\n        \"param\": null,\n        \"code\": null\n    }\n}\n",
		},
		{
			name:       "openai responses context overflow",
			url:        responsesURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Error: faults.ErrorContextOverflow},
			wantStatus: 400,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
			wantBody:   "{\n    \"error\": {\n        \"message\": \"Your input exceeds the context window of this model. Please adjust your input and try again.\",\n        \"type\": \"invalid_request_error\",\n        \"param\": \"input\",\n        \"code\": \"context_length_exceeded\"\n    }\n}\n",
		},
		{
			name:       "openai 401 with a message and retry-after-ms",
			url:        responsesURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 401, Message: "bad key", Header: http.Header{"Retry-After-Ms": {"10"}}},
			wantStatus: 401,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Retry-After-Ms": {"10"}},
			wantBody:   "{\n    \"error\": {\n        \"message\": \"bad key\",\n        \"type\": \"invalid_request_error\",\n        \"param\": null,\n        \"code\": \"invalid_api_key\"\n    }\n}\n",
		},
		{
			name:       "gemini 429 with RetryInfo",
			url:        geminiURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 429, Header: http.Header{"Retry-After": {"3"}}},
			wantStatus: 429,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"3"}},
			wantBody:   "{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\",\n    \"status\": \"RESOURCE_EXHAUSTED\",\n    \"details\": [\n      {\n        \"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\",\n        \"violations\": [\n          {\n            \"quotaId\": \"GenerateRequestsPerMinutePerProjectPerModel-FreeTier\"\n          }\n        ]\n      },\n      {\n        \"@type\": \"type.googleapis.com/google.rpc.RetryInfo\",\n        \"retryDelay\": \"3s\"\n      }\n    ]\n  }\n}\n",
		},
		{
			name:       "gemini 529 is UNAVAILABLE",
			url:        geminiURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 529},
			wantStatus: 529,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
			wantBody:   "{\n  \"error\": {\n    \"code\": 529,\n    \"message\": \"The model is overloaded. Please try again later.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n",
		},
		{
			name:       "verbatim body",
			url:        anthropicURL,
			fault:      faults.Fault{Kind: faults.KindStatus, Status: 529, Body: []byte(`{"type":"error"}`)},
			wantStatus: 529,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_injected_fault"}, "X-Should-Retry": {"true"}},
			wantBody:   `{"type":"error"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := sse("")
			in := faults.Transport(next, tt.fault)
			resp, err := in.RoundTrip(newRequest(t, context.Background(), tt.url))
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			if diff := cmp.Diff(tt.wantHeader, resp.Header); diff != "" {
				t.Errorf("resp.Header mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.wantBody, string(body))
			assert.Equal(t, int64(len(body)), resp.ContentLength)
			assert.Zero(t, next.Calls(), "a status fault answers without calling the next transport")
		})
	}
}

func TestStatusLine(t *testing.T) {
	in := faults.Transport(sse(""), faults.Fault{Kind: faults.KindStatus, Status: 529})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "529 Overloaded", resp.Status)
}

func TestAPIOf(t *testing.T) {
	for url, want := range map[string]faults.API{
		anthropicURL: faults.Anthropic,
		responsesURL: faults.OpenAIResponses,
		chatURL:      faults.OpenAIChat,
		geminiURL:    faults.Gemini,
		"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent": faults.Gemini,
		"http://localhost:8000/proxy/v1/chat/completions":                                          faults.OpenAIChat,
		"http://localhost:11434/api/tags":                                                          faults.Unknown,
		// The cloud platforms, whose paths end like the vendors'.
		"https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse": wire.Vertex,
		"https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict":          wire.VertexAnthropic,
		"https://r.openai.azure.com/openai/v1/responses":                                                    wire.AzureResponses,
		"https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21":           wire.AzureChat,
		"https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-haiku-4-5-v1%3A0/invoke": wire.Bedrock,
		"https://bedrock-runtime.us-east-1.amazonaws.com/model/m/invoke-with-response-stream":               wire.Bedrock,
	} {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		require.NoError(t, err)
		assert.Equal(t, want, faults.APIOf(req.URL), url)
	}
}
