package faults

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
)

// API is the wire protocol of a request, which decides the shape of the
// error bodies and events a fault sends.
type API string

// The protocols APIOf tells apart. The names match the emulator's and the
// fixture folders'.
const (
	Anthropic       API = "anthropic"
	OpenAIResponses API = "openai-responses"
	OpenAIChat      API = "openai-chat"
	Gemini          API = "gemini"
	// Unknown is any other path; it gets OpenAI-shaped errors, the shape
	// most OpenAI-compatible servers use.
	Unknown API = ""
)

// APIOf detects the protocol from a request URL's path, so that base URLs
// with a path prefix work too.
func APIOf(u *url.URL) API {
	p := u.Path
	switch {
	case strings.HasSuffix(p, "/v1/messages"):
		return Anthropic
	case strings.HasSuffix(p, "/responses"):
		return OpenAIResponses
	case strings.HasSuffix(p, "/chat/completions"):
		return OpenAIChat
	case strings.HasSuffix(p, ":generateContent"), strings.HasSuffix(p, ":streamGenerateContent"):
		return Gemini
	}
	return Unknown
}

// errorInfo is one provider's rendering of an ErrorKind.
type errorInfo struct {
	status int
	typ    string // Anthropic error.type, OpenAI error.type, Gemini status
	code   string // OpenAI error.code ("" is null)
	param  string // OpenAI error.param ("" is null)
	msg    string
}

// infoFor returns how api renders kind. The messages are the providers'
// own.
func infoFor(api API, kind ErrorKind) errorInfo {
	switch api {
	case Anthropic:
		switch kind {
		case ErrorAuth:
			return errorInfo{status: 401, typ: "authentication_error", msg: "invalid x-api-key"}
		case ErrorRateLimit:
			return errorInfo{status: 429, typ: "rate_limit_error", msg: "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."}
		case ErrorOverloaded:
			return errorInfo{status: 529, typ: "overloaded_error", msg: "Overloaded"}
		case ErrorServer:
			return errorInfo{status: 500, typ: "api_error", msg: "Internal server error"}
		case ErrorContextOverflow:
			return errorInfo{status: 400, typ: "invalid_request_error", msg: "prompt is too long: 200001 tokens > 200000 maximum"}
		}
		return errorInfo{status: 400, typ: "invalid_request_error", msg: "Invalid request."}
	case Gemini:
		switch kind {
		case ErrorAuth:
			return errorInfo{status: 401, typ: "UNAUTHENTICATED", msg: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."}
		case ErrorRateLimit:
			return errorInfo{status: 429, typ: "RESOURCE_EXHAUSTED", msg: "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."}
		case ErrorOverloaded:
			return errorInfo{status: 503, typ: "UNAVAILABLE", msg: "The model is overloaded. Please try again later."}
		case ErrorServer:
			return errorInfo{status: 500, typ: "INTERNAL", msg: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"}
		case ErrorContextOverflow:
			return errorInfo{status: 400, typ: "INVALID_ARGUMENT", msg: "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)."}
		}
		return errorInfo{status: 400, typ: "INVALID_ARGUMENT", msg: "Request contains an invalid argument."}
	}
	switch kind {
	case ErrorAuth:
		return errorInfo{status: 401, typ: "invalid_request_error", code: "invalid_api_key", msg: "Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys."}
	case ErrorRateLimit:
		return errorInfo{status: 429, typ: "tokens", code: "rate_limit_exceeded", msg: "Rate limit reached for requests on tokens per min (TPM): Limit 30000, Used 30000, Requested 100. Please try again in 200ms. Visit https://platform.openai.com/account/rate-limits to learn more."}
	case ErrorOverloaded:
		return errorInfo{status: 503, typ: "server_error", msg: "The engine is currently overloaded, please try again later"}
	case ErrorServer:
		return errorInfo{status: 500, typ: "server_error", msg: "The server had an error while processing your request. Sorry about that!"}
	case ErrorContextOverflow:
		if api == OpenAIResponses {
			return errorInfo{status: 400, typ: "invalid_request_error", code: "context_length_exceeded", param: "input", msg: "Your input exceeds the context window of this model. Please adjust your input and try again."}
		}
		return errorInfo{status: 400, typ: "invalid_request_error", code: "context_length_exceeded", param: "messages", msg: "This model's maximum context length is 128000 tokens. However, your messages resulted in 128001 tokens. Please reduce the length of the messages."}
	}
	return errorInfo{status: 400, typ: "invalid_request_error", msg: "Invalid request."}
}

// geminiStatus is google.rpc's name for an HTTP status.
func geminiStatus(status int) string {
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

// nullable is a JSON string, or null when empty.
type nullable string

func (n nullable) MarshalJSON() ([]byte, error) {
	if n == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(n))
}

type openAIError struct {
	Message string   `json:"message"`
	Type    string   `json:"type"`
	Param   nullable `json:"param"`
	Code    nullable `json:"code"`
}

type rpcStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []any  `json:"details,omitempty"`
}

// encode marshals v without HTML escaping, as the APIs write JSON;
// indent "" gives one line. Only this package's own types are encoded, so
// an error is impossible.
func encode(v any, indent string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		panic("faults: encoding " + err.Error())
	}
	if indent == "" {
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	return buf.Bytes()
}
