package wire

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Error is one failure as a provider renders it. ErrorFor fills in the
// provider's defaults; callers may change any field before rendering it
// with Body, Header or Event.
type Error struct {
	// Status is the HTTP status.
	Status int
	// Type is Anthropic's error.type, OpenAI's error.type, or Gemini's
	// google.rpc status name.
	Type string
	// Code and Param are OpenAI's error.code and error.param ("" is null).
	Code, Param string
	// Message is the provider's message.
	Message string
	// Reason is a Gemini google.rpc.ErrorInfo reason (API_KEY_INVALID).
	Reason string
	// RetryAfter is the provider's retry hint: Anthropic's retry-after
	// header, Gemini's google.rpc.RetryInfo; 0 for none.
	RetryAfter time.Duration
	// RequestID is Anthropic's request id (request-id header and body).
	RequestID string
}

// ErrorFor returns how api renders a failure of kind for model (which
// some messages name; "" for none). The messages are the providers' own.
func ErrorFor(api API, kind Kind, model string) Error {
	if IsCloud(api) {
		return cloudError(api, kind, model)
	}
	switch api {
	case Anthropic:
		return anthropicError(kind, model)
	case Gemini:
		return geminiError(kind, model)
	case Ollama:
		return ollamaError(kind, model)
	}
	return openAIError(api, kind, model)
}

func anthropicError(kind Kind, model string) Error {
	e := Error{Status: 400, Type: "invalid_request_error", Message: "Invalid request."}
	switch kind {
	case Auth:
		e = Error{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}
	case MissingKey:
		e = Error{Status: 401, Type: "authentication_error", Message: "x-api-key header is required"}
	case RateLimit:
		e = Error{Status: 429, Type: "rate_limit_error", Message: "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}
	case Overloaded:
		e = Error{Status: 529, Type: "overloaded_error", Message: "Overloaded"}
	case Server:
		e = Error{Status: 500, Type: "api_error", Message: "Internal server error"}
	case ContextOverflow:
		e.Message = "prompt is too long: 200001 tokens > 200000 maximum"
	case ModelNotFound:
		e = Error{Status: 404, Type: "not_found_error", Message: "model: " + model}
	}
	return e
}

func openAIError(api API, kind Kind, model string) Error {
	e := Error{Status: 400, Type: "invalid_request_error", Message: "Invalid request."}
	switch kind {
	case Auth:
		// The real message echoes a masked key; this masks it all.
		e.Status, e.Code = 401, "invalid_api_key"
		e.Message = "Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys."
	case MissingKey:
		e.Status = 401
		e.Message = "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."
	case RateLimit:
		what := model
		if what == "" {
			what = "requests"
		}
		e = Error{Status: 429, Type: "tokens", Code: "rate_limit_exceeded",
			Message: fmt.Sprintf("Rate limit reached for %s in organization org-emulator on tokens per min (TPM): Limit 30000, Used 30000, Requested 100. Please try again in 200ms. Visit https://platform.openai.com/account/rate-limits to learn more.", what)}
	case Overloaded:
		e = Error{Status: 503, Type: "server_error", Message: "The engine is currently overloaded, please try again later"}
	case Server:
		e = Error{Status: 500, Type: "server_error", Message: "The server had an error while processing your request. Sorry about that!"}
	case ContextOverflow:
		e.Code = "context_length_exceeded"
		if api == OpenAIResponses {
			e.Param, e.Message = "input", "Your input exceeds the context window of this model. Please adjust your input and try again."
		} else {
			e.Param, e.Message = "messages", "This model's maximum context length is 128000 tokens. However, your messages resulted in 128001 tokens. Please reduce the length of the messages."
		}
	case ModelNotFound:
		e.Status, e.Code = 404, "model_not_found"
		e.Message = fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)
	}
	return e
}

func geminiError(kind Kind, model string) Error {
	e := Error{Status: 400, Type: "INVALID_ARGUMENT", Message: "Request contains an invalid argument."}
	switch kind {
	case Auth:
		e.Message, e.Reason = "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"
	case MissingKey:
		e = Error{Status: 403, Type: "PERMISSION_DENIED", Message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."}
	case RateLimit:
		e = Error{Status: 429, Type: "RESOURCE_EXHAUSTED", Message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."}
	case Overloaded:
		e = Error{Status: 503, Type: "UNAVAILABLE", Message: "The model is overloaded. Please try again later."}
	case Server:
		e = Error{Status: 500, Type: "INTERNAL", Message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"}
	case ContextOverflow:
		e.Message = "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)."
	case ModelNotFound:
		e = Error{Status: 404, Type: "NOT_FOUND",
			Message: fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent. Call ModelService.ListModels to see the list of available models and their supported methods.", model)}
	}
	return e
}

// WithStatus returns e answered with another HTTP status: for Gemini the
// google.rpc status name follows the new status.
func (e Error) WithStatus(api API, status int) Error {
	if status == 0 || status == e.Status {
		return e
	}
	if IsCloud(api) {
		return e.cloudWithStatus(api, status)
	}
	e.Status = status
	if api == Gemini {
		e.Type = GeminiStatus(status)
	}
	return e
}

// Header returns the response headers of e's HTTP answer beyond
// Content-Type: Anthropic's request-id, x-should-retry (true for the
// statuses its SDKs retry: 408, 409, 429, 5xx) and retry-after.
func (e Error) Header(api API) http.Header {
	if IsCloud(api) {
		return e.cloudHeader(api)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if api != Anthropic {
		return h
	}
	if e.RequestID != "" {
		h.Set("request-id", e.RequestID)
	}
	s := e.Status
	h.Set("x-should-retry", strconv.FormatBool(s == 408 || s == 409 || s == 429 || s >= 500))
	if e.RetryAfter > 0 {
		h.Set("retry-after", strconv.Itoa(int(e.RetryAfter.Round(time.Second)/time.Second)))
	}
	return h
}

// Body renders e as api's HTTP error body.
func (e Error) Body(api API) []byte {
	if IsCloud(api) {
		return e.cloudBody(api)
	}
	switch api {
	case Anthropic:
		return JSON(struct {
			Type      string         `json:"type"`
			Error     anthropicInner `json:"error"`
			RequestID string         `json:"request_id,omitempty"`
		}{"error", anthropicInner{e.Type, e.Message}, e.RequestID}, "")
	case Gemini:
		return JSON(struct {
			Error rpcStatus `json:"error"`
		}{e.rpcStatus(true)}, "  ")
	case Ollama:
		return e.ollamaBody()
	}
	return JSON(struct {
		Error openAIInner `json:"error"`
	}{e.openAI()}, "    ")
}

type anthropicInner struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type openAIInner struct {
	Message string   `json:"message"`
	Type    string   `json:"type"`
	Param   nullable `json:"param"`
	Code    nullable `json:"code"`
}

func (e Error) openAI() openAIInner {
	return openAIInner{Message: e.Message, Type: e.Type, Param: nullable(e.Param), Code: nullable(e.Code)}
}

// rpcStatus is a google.rpc.Status.
type rpcStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []any  `json:"details,omitempty"`
}

type errorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata"`
}

type localizedMessage struct {
	Type    string `json:"@type"`
	Locale  string `json:"locale"`
	Message string `json:"message"`
}

type quotaFailure struct {
	Type       string              `json:"@type"`
	Violations []map[string]string `json:"violations"`
}

type retryInfo struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
}

// rpcStatus renders e as a google.rpc.Status; details adds what the API
// puts in details (left out of stream events).
func (e Error) rpcStatus(details bool) rpcStatus {
	s := rpcStatus{Code: e.Status, Message: e.Message, Status: e.Type}
	if !details {
		return s
	}
	if e.Reason != "" {
		s.Details = append(s.Details,
			errorInfo{"type.googleapis.com/google.rpc.ErrorInfo", e.Reason, "googleapis.com", map[string]string{"service": "generativelanguage.googleapis.com"}},
			localizedMessage{"type.googleapis.com/google.rpc.LocalizedMessage", "en-US", e.Message})
	}
	if e.Type == "RESOURCE_EXHAUSTED" {
		s.Details = append(s.Details, quotaFailure{"type.googleapis.com/google.rpc.QuotaFailure",
			[]map[string]string{{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}}})
	}
	if e.RetryAfter > 0 {
		s.Details = append(s.Details, retryInfo{"type.googleapis.com/google.rpc.RetryInfo", strconv.FormatFloat(e.RetryAfter.Seconds(), 'f', -1, 64) + "s"})
	}
	return s
}

// GeminiStatus is google.rpc's status name for an HTTP status.
func GeminiStatus(status int) string {
	switch status {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503, 529:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}
