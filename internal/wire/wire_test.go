package wire

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestKindForStatus(t *testing.T) {
	got := map[int]Kind{}
	for _, s := range []int{400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 529} {
		got[s] = KindForStatus(s)
	}
	want := map[int]Kind{400: InvalidRequest, 401: Auth, 403: Auth, 404: ModelNotFound, 408: InvalidRequest,
		413: ContextOverflow, 422: InvalidRequest, 429: RateLimit, 500: Server, 502: Server, 503: Overloaded, 529: Overloaded}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStatuses is the table of the package doc: the status each provider
// answers each kind with.
func TestStatuses(t *testing.T) {
	want := map[API][]int{
		// invalid, auth, missing key, rate limit, overloaded, server, context, not found
		Anthropic:       {400, 401, 401, 429, 529, 500, 400, 404},
		OpenAIResponses: {400, 401, 401, 429, 503, 500, 400, 404},
		OpenAIChat:      {400, 401, 401, 429, 503, 500, 400, 404},
		Gemini:          {400, 400, 403, 429, 503, 500, 400, 404},
	}
	kinds := []Kind{InvalidRequest, Auth, MissingKey, RateLimit, Overloaded, Server, ContextOverflow, ModelNotFound}
	got := map[API][]int{}
	for api := range want {
		for _, k := range kinds {
			got[api] = append(got[api], ErrorFor(api, k, "m").Status)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBodies(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  API
		e    Error
		want string
	}{
		{"anthropic", Anthropic, Error{Type: "api_error", Message: "boom", RequestID: "req_1"},
			`{"type":"error","error":{"type":"api_error","message":"boom"},"request_id":"req_1"}`},
		{"openai nulls", OpenAIChat, Error{Type: "server_error", Message: "boom"},
			"{\n    \"error\": {\n        \"message\": \"boom\",\n        \"type\": \"server_error\",\n        \"param\": null,\n        \"code\": null\n    }\n}\n"},
		{"gemini bad key", Gemini, ErrorFor(Gemini, Auth, ""),
			`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}},` +
				`{"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en-US","message":"API key not valid. Please pass a valid API key."}]}}`},
		{"gemini retry", Gemini, Error{Status: 429, Type: "RESOURCE_EXHAUSTED", Message: "q", RetryAfter: 1500 * time.Millisecond},
			`{"error":{"code":429,"message":"q","status":"RESOURCE_EXHAUSTED","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},` +
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.e.Body(tc.api)
			if tc.api == Gemini {
				got = compact(t, got)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// compact removes the indentation of a body, keeping its key order.
func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return buf.Bytes()
}

func TestWithStatus(t *testing.T) {
	e := ErrorFor(Gemini, Auth, "").WithStatus(Gemini, 401)
	if e.Status != 401 || e.Type != "UNAUTHENTICATED" {
		t.Errorf("got %d %s, want 401 UNAUTHENTICATED (the name follows the status)", e.Status, e.Type)
	}
	a := ErrorFor(Anthropic, Server, "").WithStatus(Anthropic, 502)
	if a.Status != 502 || a.Type != "api_error" {
		t.Errorf("got %d %s, want 502 api_error", a.Status, a.Type)
	}
}

func TestHeader(t *testing.T) {
	e := ErrorFor(Anthropic, RateLimit, "")
	e.RequestID, e.RetryAfter = "req_1", 2*time.Second
	got := e.Header(Anthropic)
	want := map[string]string{"Content-Type": "application/json", "Request-Id": "req_1", "X-Should-Retry": "true", "Retry-After": "2"}
	have := map[string]string{}
	for k := range got {
		have[k] = got.Get(k)
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if v := ErrorFor(Anthropic, InvalidRequest, "").Header(Anthropic).Get("x-should-retry"); v != "false" {
		t.Errorf("x-should-retry on a 400 = %q, want false", v)
	}
	if h := ErrorFor(Gemini, RateLimit, "").Header(Gemini); len(h) != 1 {
		t.Errorf("Gemini headers = %v, want Content-Type only", h)
	}
}

func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		api  API
		st   *Stream
		want string
	}{
		{Anthropic, nil, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"},
		{Gemini, nil, "data: {\"error\":{\"code\":500,\"message\":\"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting\",\"status\":\"INTERNAL\"}}\r\n\r\n"},
		{OpenAIChat, &Stream{EOL: "\r\n"}, "data: {\"error\":{\"message\":\"The server had an error while processing your request. Sorry about that!\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\r\n\r\n"},
		{OpenAIResponses, &Stream{Seq: 4, HaveSeq: true, Response: json.RawMessage(`{"id":"resp_1"}`)},
			"event: error\ndata: {\"type\":\"error\",\"sequence_number\":5,\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"The server had an error while processing your request. Sorry about that!\",\"param\":null}}\n\n" +
				"event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":6,\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"The server had an error while processing your request. Sorry about that!\"},\"id\":\"resp_1\",\"status\":\"failed\"}}\n\n"},
	} {
		t.Run(string(tc.api), func(t *testing.T) {
			got := ErrorFor(tc.api, StreamKind(tc.api), "").Event(tc.api, tc.st)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGeminiStatus(t *testing.T) {
	got := map[int]string{}
	for _, s := range []int{400, 401, 403, 404, 409, 418, 429, 499, 500, 501, 503, 504, 529} {
		got[s] = GeminiStatus(s)
	}
	want := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
		409: "ABORTED", 418: "FAILED_PRECONDITION", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL",
		501: "UNIMPLEMENTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED", 529: "UNAVAILABLE"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
