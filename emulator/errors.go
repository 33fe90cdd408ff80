package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// ErrorKind is a kind of failure a Reply can script. Each provider renders
// it with its own status and error body.
type ErrorKind string

// Error kinds, with the status each provider answers them with
// (Anthropic / OpenAI / Gemini).
const (
	// ErrorInvalidRequest: 400 / 400 / 400 INVALID_ARGUMENT.
	ErrorInvalidRequest ErrorKind = "invalid_request"
	// ErrorAuth is a wrong key: 401 / 401 / 400 API_KEY_INVALID.
	ErrorAuth ErrorKind = "auth"
	// ErrorRateLimit: 429 / 429 / 429 RESOURCE_EXHAUSTED.
	ErrorRateLimit ErrorKind = "rate_limit"
	// ErrorOverloaded: 529 / 503 / 503 UNAVAILABLE.
	ErrorOverloaded ErrorKind = "overloaded"
	// ErrorServer: 500 / 500 / 500 INTERNAL.
	ErrorServer ErrorKind = "server_error"
	// ErrorContextOverflow: 400 / 400 context_length_exceeded / 400.
	ErrorContextOverflow ErrorKind = "context_overflow"
	// ErrorModelNotFound: 404 / 404 model_not_found / 404 NOT_FOUND.
	ErrorModelNotFound ErrorKind = "model_not_found"

	// errorMissingKey is a request without a key (answered before any
	// script is consulted).
	errorMissingKey ErrorKind = "missing_key"
	// errorScript is a broken or exhausted script, or a Responder error.
	errorScript ErrorKind = "emulator"
)

// kindForStatus infers the kind of a failure scripted by status alone.
func kindForStatus(status int) ErrorKind {
	switch {
	case status == 401 || status == 403:
		return ErrorAuth
	case status == 404:
		return ErrorModelNotFound
	case status == 429:
		return ErrorRateLimit
	case status == 503 || status == 529:
		return ErrorOverloaded
	case status >= 500:
		return ErrorServer
	}
	return ErrorInvalidRequest
}

// apiError is one error answer: status, extra headers and body.
type apiError struct {
	status int
	header http.Header
	body   []byte
}

// errorFor renders a failure of kind for api. message overrides the
// provider's default message when non-empty; model names the requested
// model; reqID is the emulator's request id.
func errorFor(api API, kind ErrorKind, message, model, reqID string) apiError {
	switch api {
	case Anthropic:
		return anthropicError(kind, message, model, reqID)
	case Gemini:
		return geminiError(kind, message, model)
	}
	return openAIError(api, kind, message, model)
}

// scriptedError renders the failure a Reply scripts.
func scriptedError(api API, r *Reply, model, reqID string) apiError {
	kind := r.Error
	if kind == "" {
		kind = kindForStatus(r.Status)
	}
	e := errorFor(api, kind, r.ErrorMessage, model, reqID)
	if len(r.ErrorBody) > 0 {
		e.body = r.ErrorBody
		if r.Error == "" {
			e.status = http.StatusBadRequest
		}
	}
	if r.Status != 0 {
		e.status = r.Status
	}
	return e
}

// write sends e.
func (e apiError) write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	for k, vs := range e.header {
		h[k] = vs
	}
	w.WriteHeader(e.status)
	w.Write(e.body) //nolint:errcheck // the client went away; nothing to do
}

// Anthropic: {"type":"error","error":{"type":...,"message":...},"request_id":...}.
func anthropicError(kind ErrorKind, message, model, reqID string) apiError {
	status, typ, msg := 400, "invalid_request_error", "Invalid request."
	switch kind {
	case ErrorAuth:
		status, typ, msg = 401, "authentication_error", "invalid x-api-key"
	case errorMissingKey:
		status, typ, msg = 401, "authentication_error", "x-api-key header is required"
	case ErrorRateLimit:
		status, typ, msg = 429, "rate_limit_error", "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."
	case ErrorOverloaded:
		status, typ, msg = 529, "overloaded_error", "Overloaded"
	case ErrorServer:
		status, typ, msg = 500, "api_error", "Internal server error"
	case ErrorContextOverflow:
		msg = "prompt is too long: 200001 tokens > 200000 maximum"
	case ErrorModelNotFound:
		status, typ, msg = 404, "not_found_error", "model: "+model
	case errorScript:
		status, typ = 500, "api_error"
	}
	if message != "" {
		msg = message
	}
	body := marshal(struct {
		Type      string `json:"type"`
		Error     any    `json:"error"`
		RequestID string `json:"request_id"`
	}{"error", struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}{typ, msg}, reqID})
	h := http.Header{}
	h.Set("request-id", reqID)
	retry := status == 429 || status >= 500
	h.Set("x-should-retry", strconv.FormatBool(retry))
	if status == 429 {
		h.Set("retry-after", "1")
	}
	return apiError{status: status, header: h, body: body}
}

// OpenAI: {"error":{"message":...,"type":...,"param":...,"code":...}},
// indented four spaces as the API sends it.
func openAIError(api API, kind ErrorKind, message, model string) apiError {
	status, typ, msg := 400, "invalid_request_error", "Invalid request."
	var param, code any
	switch kind {
	case ErrorAuth:
		// The real message echoes a masked key; the emulator masks it all.
		status, msg, code = 401, "Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_api_key"
	case errorMissingKey:
		status, msg = 401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."
	case ErrorRateLimit:
		status, typ, code = 429, "tokens", "rate_limit_exceeded"
		msg = fmt.Sprintf("Rate limit reached for %s in organization org-emulator on tokens per min (TPM): Limit 30000, Used 30000, Requested 100. Please try again in 200ms. Visit https://platform.openai.com/account/rate-limits to learn more.", model)
	case ErrorOverloaded:
		status, typ, msg = 503, "server_error", "The engine is currently overloaded, please try again later"
	case ErrorServer, errorScript:
		status, typ, msg = 500, "server_error", "The server had an error while processing your request. Sorry about that!"
	case ErrorContextOverflow:
		code = "context_length_exceeded"
		if api == OpenAIResponses {
			param, msg = "input", "Your input exceeds the context window of this model. Please adjust your input and try again."
		} else {
			param, msg = "messages", "This model's maximum context length is 128000 tokens. However, your messages resulted in 128001 tokens. Please reduce the length of the messages."
		}
	case ErrorModelNotFound:
		status, code = 404, "model_not_found"
		msg = fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)
	}
	if message != "" {
		msg = message
	}
	body := marshalIndent(struct {
		Error any `json:"error"`
	}{struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   any    `json:"param"`
		Code    any    `json:"code"`
	}{msg, typ, param, code}}, "    ")
	return apiError{status: status, body: body}
}

// Gemini: a google.rpc.Status, {"error":{"code":...,"message":...,
// "status":...,"details":[...]}}, indented two spaces.
func geminiError(kind ErrorKind, message, model string) apiError {
	status, st, msg := 400, "INVALID_ARGUMENT", "Request contains an invalid argument."
	var details []any
	switch kind {
	case ErrorAuth:
		msg = "API key not valid. Please pass a valid API key."
		details = []any{struct {
			Type     string            `json:"@type"`
			Reason   string            `json:"reason"`
			Domain   string            `json:"domain"`
			Metadata map[string]string `json:"metadata"`
		}{"type.googleapis.com/google.rpc.ErrorInfo", "API_KEY_INVALID", "googleapis.com", map[string]string{"service": "generativelanguage.googleapis.com"}}}
	case errorMissingKey:
		status, st = 403, "PERMISSION_DENIED"
		msg = "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
	case ErrorRateLimit:
		status, st, msg = 429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
		details = []any{
			struct {
				Type       string              `json:"@type"`
				Violations []map[string]string `json:"violations"`
			}{"type.googleapis.com/google.rpc.QuotaFailure", []map[string]string{{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}}},
			struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			}{"type.googleapis.com/google.rpc.RetryInfo", "1s"},
		}
	case ErrorOverloaded:
		status, st, msg = 503, "UNAVAILABLE", "The model is overloaded. Please try again later."
	case ErrorServer, errorScript:
		status, st, msg = 500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	case ErrorContextOverflow:
		msg = "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)."
	case ErrorModelNotFound:
		status, st = 404, "NOT_FOUND"
		msg = fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent. Call ModelService.ListModels to see the list of available models and their supported methods.", model)
	}
	if message != "" {
		msg = message
	}
	type rpcStatus struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []any  `json:"details,omitempty"`
	}
	body := marshalIndent(struct {
		Error rpcStatus `json:"error"`
	}{rpcStatus{status, msg, st, details}}, "  ")
	return apiError{status: status, body: body}
}

// marshal encodes v compactly without HTML escaping, as the APIs do. The
// emulator encodes only its own types, so an error is a programming error.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("emulator: encoding " + fmt.Sprintf("%T", v) + ": " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// marshalIndent encodes v indented, ending with a newline.
func marshalIndent(v any, indent string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		panic("emulator: encoding " + fmt.Sprintf("%T", v) + ": " + err.Error())
	}
	return buf.Bytes()
}
