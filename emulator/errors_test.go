package emulator_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
)

// errorCase is what one provider answers one scripted failure with.
type errorCase struct {
	status int
	// typ is error.type (Anthropic, OpenAI) or error.status (Gemini).
	typ string
	// code is OpenAI's error.code; "" means null.
	code string
}

func TestScriptedErrors(t *testing.T) {
	tests := []struct {
		kind                     emulator.ErrorKind
		anthropic, openai, gemin errorCase
	}{
		{emulator.ErrorInvalidRequest, errorCase{400, "invalid_request_error", ""}, errorCase{400, "invalid_request_error", ""}, errorCase{400, "INVALID_ARGUMENT", ""}},
		{emulator.ErrorAuth, errorCase{401, "authentication_error", ""}, errorCase{401, "invalid_request_error", "invalid_api_key"}, errorCase{400, "INVALID_ARGUMENT", ""}},
		{emulator.ErrorRateLimit, errorCase{429, "rate_limit_error", ""}, errorCase{429, "tokens", "rate_limit_exceeded"}, errorCase{429, "RESOURCE_EXHAUSTED", ""}},
		{emulator.ErrorOverloaded, errorCase{529, "overloaded_error", ""}, errorCase{503, "server_error", ""}, errorCase{503, "UNAVAILABLE", ""}},
		{emulator.ErrorServer, errorCase{500, "api_error", ""}, errorCase{500, "server_error", ""}, errorCase{500, "INTERNAL", ""}},
		{emulator.ErrorContextOverflow, errorCase{400, "invalid_request_error", ""}, errorCase{400, "invalid_request_error", "context_length_exceeded"}, errorCase{400, "INVALID_ARGUMENT", ""}},
		{emulator.ErrorModelNotFound, errorCase{404, "not_found_error", ""}, errorCase{404, "invalid_request_error", "model_not_found"}, errorCase{404, "NOT_FOUND", ""}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			r := emulator.Reply{Error: tt.kind}
			srv := start(t, emulator.WithReplies(r, r, r, r))

			status, h, body := do(t, srv, anthropicCall(`{"model":"claude-x","max_tokens":1,"messages":[],"stream":true}`))
			assert.Equal(t, tt.anthropic.status, status)
			assert.Equal(t, "application/json", h.Get("Content-Type"), "errors are JSON even for stream requests")
			m := obj(t, body)
			assert.Equal(t, "error", m["type"])
			assert.Equal(t, tt.anthropic.typ, at(t, m, "error", "type"))
			assert.NotEmpty(t, at(t, m, "error", "message"))
			assert.Equal(t, "req_emu_0001", m["request_id"])
			assert.Equal(t, "req_emu_0001", h.Get("Request-Id"))
			wantRetry := "false"
			if status == 429 || status >= 500 {
				wantRetry = "true"
			}
			assert.Equal(t, wantRetry, h.Get("X-Should-Retry"))

			for _, c := range []call{chatCall(`{"model":"gpt-x","messages":[]}`), responsesCall(`{"model":"gpt-x","input":"x","stream":true}`)} {
				status, _, body = do(t, srv, c)
				assert.Equal(t, tt.openai.status, status, c.path)
				m = obj(t, body)
				assert.Equal(t, tt.openai.typ, at(t, m, "error", "type"), c.path)
				assert.NotEmpty(t, at(t, m, "error", "message"))
				assert.Contains(t, at(t, m, "error"), "param")
				if tt.openai.code == "" {
					assert.Nil(t, at(t, m, "error", "code"))
				} else {
					assert.Equal(t, tt.openai.code, at(t, m, "error", "code"), c.path)
				}
			}

			status, _, body = do(t, srv, geminiCall("gemini-x", true, `{"contents":[]}`))
			assert.Equal(t, tt.gemin.status, status)
			m = obj(t, body)
			assert.Equal(t, tt.gemin.status, num(t, at(t, m, "error", "code")))
			assert.Equal(t, tt.gemin.typ, at(t, m, "error", "status"))
			assert.NotEmpty(t, at(t, m, "error", "message"))
		})
	}
}

func TestScriptedErrorDetails(t *testing.T) {
	t.Run("gemini auth says API_KEY_INVALID", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Error: emulator.ErrorAuth}))
		_, _, body := do(t, srv, geminiCall("g", false, `{"contents":[]}`))
		assert.Equal(t, "API_KEY_INVALID", at(t, obj(t, body), "error", "details", 0, "reason"))
	})
	t.Run("gemini rate limit carries RetryInfo", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Error: emulator.ErrorRateLimit}))
		_, _, body := do(t, srv, geminiCall("g", false, `{"contents":[]}`))
		m := obj(t, body)
		assert.Equal(t, "type.googleapis.com/google.rpc.RetryInfo", at(t, m, "error", "details", 1, "@type"))
		assert.Equal(t, "1s", at(t, m, "error", "details", 1, "retryDelay"))
	})
	t.Run("model not found names the model", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Error: emulator.ErrorModelNotFound}))
		_, _, body := do(t, srv, chatCall(`{"model":"gpt-nope","messages":[]}`))
		assert.Equal(t, "The model `gpt-nope` does not exist or you do not have access to it.", at(t, obj(t, body), "error", "message"))
	})
	t.Run("status alone picks the kind", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Status: 429, Header: http.Header{"Retry-After": {"7"}}}))
		status, h, body := do(t, srv, anthropicCall(`{"model":"m","max_tokens":1,"messages":[]}`))
		assert.Equal(t, 429, status)
		assert.Equal(t, "rate_limit_error", at(t, obj(t, body), "error", "type"))
		assert.Equal(t, "7", h.Get("Retry-After"), "scripted headers win")
	})
	t.Run("message and status override", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Error: emulator.ErrorServer, Status: 502, ErrorMessage: "bad gateway"}))
		status, _, body := do(t, srv, responsesCall(`{"model":"m","input":"x"}`))
		assert.Equal(t, 502, status)
		assert.Equal(t, "bad gateway", at(t, obj(t, body), "error", "message"))
	})
	t.Run("verbatim body", func(t *testing.T) {
		raw := `{"error":{"message":"weird","type":"x"}}`
		srv := start(t, emulator.WithReplies(emulator.Reply{ErrorBody: json.RawMessage(raw)}))
		status, _, body := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
		assert.Equal(t, 400, status)
		assert.Equal(t, raw, body)
	})
}

func TestMissingKey(t *testing.T) {
	tests := []struct {
		name    string
		c       call
		status  int
		message string
	}{
		{"anthropic", call{path: "/v1/messages", header: map[string]string{"anthropic-version": anthropicVer}},
			401, "x-api-key header is required"},
		{"openai chat", call{path: "/v1/chat/completions"},
			401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."},
		{"openai responses", call{path: "/v1/responses", header: map[string]string{"Authorization": "Basic abc"}},
			401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."},
		{"gemini", call{path: "/v1beta/models/g:generateContent"},
			403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."},
		{"openai models", call{method: "GET", path: "/v1/models"},
			401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Text: "never sent"}))
			tt.c.body = `{"model":"m","max_tokens":1,"messages":[],"contents":[]}`
			status, _, body := do(t, srv, tt.c)
			require.Equal(t, tt.status, status, body)
			m := obj(t, body)
			assert.Equal(t, tt.message, at(t, m, "error", "message"))
			switch tt.name {
			case "anthropic":
				assert.Equal(t, "authentication_error", at(t, m, "error", "type"))
			case "gemini":
				assert.Equal(t, "PERMISSION_DENIED", at(t, m, "error", "status"))
			default:
				assert.Equal(t, "invalid_request_error", at(t, m, "error", "type"))
			}
			assert.Equal(t, 1, srv.Pending(), "a rejected request consumes no reply")
		})
	}
}

func TestWrongKeyAndKeyFlow(t *testing.T) {
	srv := start(t, emulator.WithAPIKey(testKey), emulator.WithReplies(emulator.Reply{Text: "ok"}))

	c := chatCall(`{"model":"m","messages":[]}`)
	c.header["Authorization"] = "Bearer sk-test-OTHER"
	status, _, body := do(t, srv, c)
	assert.Equal(t, 401, status)
	assert.Equal(t, "invalid_api_key", at(t, obj(t, body), "error", "code"))
	assert.NotContains(t, body, "OTHER", "the key is never echoed")

	status, _, body = do(t, srv, chatCall(`{"model":"m","messages":[]}`))
	assert.Equal(t, 200, status, body)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer sk-test-OTHER", reqs[0].Header.Get("Authorization"), "Requests shows the key that was sent")
	assert.Equal(t, "Bearer "+testKey, reqs[1].Header.Get("Authorization"))
	assert.Equal(t, "/v1/chat/completions", reqs[1].Path)
	assert.Equal(t, `{"model":"m","messages":[]}`, string(reqs[1].Body))
}

func TestWithoutAuth(t *testing.T) {
	srv := start(t, emulator.WithoutAuth(), emulator.WithReplies(emulator.Reply{Text: "ok"}))
	status, _, body := do(t, srv, call{path: "/v1/chat/completions", body: `{"model":"llama3.2","messages":[]}`})
	assert.Equal(t, 200, status, body)
}
