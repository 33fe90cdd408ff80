package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// ClassifyChat maps a non-2xx response of an OpenAI-style API (Chat
// Completions or Responses) to an AdapterError; the stream decoders use
// the same mapping for errors reported inside a 200 stream (status 0,
// where a numeric "code" such as OpenRouter's 429 stands for the status).
// The status gives the default class (driver.ClassifyStatus, 000 §6.2)
// and the body's error code, type and message refine it:
//
//	signal (code, type or message)                       class             Code                    retry
//	insufficient_quota                                   rate_limit        insufficient_quota      no
//	429, rate_limit_exceeded, rate_limit_error           rate_limit        -                       yes
//	401, 403, invalid_api_key, authentication_error      auth              -                       no
//	404 + "does not exist"/"not found", model_not_found  invalid_request   model_not_found         no
//	408                                                  network           -                       yes
//	413, context_length_exceeded, "maximum context       context_overflow  -                       no
//	  length", "context window"
//	"No tool call found", "No tool output found",        invalid_request   tool_call_state         no
//	  tool messages without a preceding tool_calls
//	"without its required following item",               invalid_request   invalid_history         no
//	  "without its required 'reasoning' item"
//	invalid_json_schema, invalid_function_parameters,    invalid_request   strict_schema_rejected  no
//	  "Invalid schema for"
//	other 4xx                                            invalid_request   -                       no
//	5xx (529 too), server_error                          server_error      -                       yes
//	stream error with no known code                      server_error      -                       yes
//
// Quota exhaustion comes as a 429 (or a mid-stream error event) but is not
// transient: retrying cannot succeed until billing changes, so it keeps
// the rate_limit class (routing treats it as an unavailable provider) with
// Code insufficient_quota and Retryable false, and the Caller does not
// retry it. A body hint such as "Please try again in 1.5s." becomes
// RetryAfter only when the response has no Retry-After or retry-after-ms
// header (the Caller reads those itself).
//
// It understands the OpenAI body {"error":{"message","type","param","code"}}
// and the variants OpenAI-compatible servers send: {"error":"message"},
// a top-level {"message","type","code"} (vLLM), and a one-element array of
// either (Gemini's compatibility endpoint). body may be empty or not JSON;
// the message then falls back to the body text or the status text.
func ClassifyChat(status int, h http.Header, body []byte) *canonical.AdapterError {
	e := parseAPIError(body)
	ae := classifyAPIError(status, e)
	if ae.RetryAfter == 0 && h.Get("retry-after") == "" && h.Get("retry-after-ms") == "" {
		ae.RetryAfter = retryHint(e.Message)
	}
	return ae
}

// apiError is the error object of an OpenAI-style body or stream event.
type apiError struct {
	Message string     `json:"message"`
	Type    flexString `json:"type"`
	Param   flexString `json:"param"`
	Code    flexString `json:"code"`
}

// flexString decodes a JSON string, number or null into a string:
// OpenAI-compatible servers put numbers in "code" (502, 404).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*f = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	default:
		*f = flexString(b) // a number, bool or object, kept as its literal
	}
	return nil
}

// parseAPIError extracts the error object from an error body in any of the
// shapes ClassifyChat accepts. Unparseable bodies give their text as the
// message.
func parseAPIError(body []byte) apiError {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
			body = arr[0]
		}
	}
	var env struct {
		Error json.RawMessage `json:"error"`
		apiError
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return apiError{Message: truncate(string(body), 512)}
	}
	if len(env.Error) > 0 && env.Error[0] == '{' {
		var e apiError
		if json.Unmarshal(env.Error, &e) == nil {
			return e
		}
	}
	if len(env.Error) > 0 && env.Error[0] == '"' {
		var msg string
		_ = json.Unmarshal(env.Error, &msg)
		return apiError{Message: msg}
	}
	if env.Message != "" || env.Code != "" || env.Type != "" {
		return env.apiError
	}
	return apiError{Message: truncate(string(body), 512)}
}

// classifyAPIError classifies e received with status (0 for an error
// reported inside a stream).
func classifyAPIError(status int, e apiError) *canonical.AdapterError {
	code, typ, msg := string(e.Code), string(e.Type), e.Message
	lower := strings.ToLower(msg)
	class := driver.ClassifyStatus(status)
	if status == 0 {
		// An error inside a 200 stream. Compatible servers put the HTTP
		// status it stands for in "code" (OpenRouter: 429, 502).
		class = canonical.ErrServer
		if n, err := strconv.Atoi(code); err == nil && n >= 400 && n <= 599 {
			class = driver.ClassifyStatus(n)
		}
	}
	var fine string
	has := func(subs ...string) bool {
		for _, s := range subs {
			if code == s || typ == s {
				return true
			}
		}
		return false
	}
	contains := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(lower, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("insufficient_quota"):
		class, fine = canonical.ErrRateLimit, canonical.CodeQuotaExceeded
	case has("rate_limit_exceeded", "rate_limit_error"):
		class = canonical.ErrRateLimit
	case has("invalid_api_key", "authentication_error", "invalid_authentication"):
		class = canonical.ErrAuth
	case has("context_length_exceeded") || contains("maximum context length", "context window", "context_length_exceeded"):
		class = canonical.ErrContextOverflow
	case has("model_not_found") || status == 404 && contains("model") && contains("does not exist", "not found"):
		class, fine = canonical.ErrInvalidRequest, canonical.CodeModelNotFound
	case contains("no tool call found", "no tool output found",
		"must be followed by tool messages", "must be a response to a preceeding message with 'tool_calls'",
		"must be a response to a preceding message with 'tool_calls'"):
		class, fine = canonical.ErrInvalidRequest, canonical.CodeToolCallState
	case contains("without its required following item", "without its required 'reasoning' item"):
		class, fine = canonical.ErrInvalidRequest, canonical.CodeInvalidHistory
	case has("invalid_json_schema", "invalid_function_parameters") || contains("invalid schema for"):
		class, fine = canonical.ErrInvalidRequest, canonical.CodeStrictSchemaRejected
	case status == 0 && has("invalid_request_error"):
		class = canonical.ErrInvalidRequest
	case status == 0 && has("server_error", "internal_error", "api_error"):
		class = canonical.ErrServer
	}
	if msg == "" {
		msg = http.StatusText(status)
		if msg == "" {
			msg = "provider reported an error"
		}
		if code != "" {
			msg += " (" + code + ")"
		}
	}
	ae := driver.HTTPError(class, fine, status, msg)
	if fine == canonical.CodeQuotaExceeded {
		ae.Retryable = false
	}
	return ae
}

// retryAfterRe finds OpenAI's hint "Please try again in 1.898s" / "in 20ms".
var retryAfterRe = regexp.MustCompile(`(?i)try again in (\d+(?:\.\d+)?)\s*(ms|s)\b`)

// retryHint reads a retry delay from an error message, capped like the
// header forms; 0 when there is none.
func retryHint(msg string) time.Duration {
	m := retryAfterRe.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0
	}
	if strings.EqualFold(m[2], "ms") {
		f /= 1000
	}
	return driver.RetryDelay(f)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
