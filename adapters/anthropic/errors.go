package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Error mapping. Anthropic answers failures with
// {"type":"error","error":{"type":T,"message":M},"request_id":R}, as HTTP
// errors and as a mid-stream `event: error`. T decides the class; the
// status decides only when the body has no known type.
//
//	error.type             status  class             code
//	invalid_request_error  400     invalid_request   -
//	  message "prompt is too long" / "exceed context limit"
//	                               context_overflow  -
//	authentication_error   401     auth              -
//	permission_error       403     auth              -
//	billing_error          402     auth              insufficient_quota
//	not_found_error        404     invalid_request   model_not_found when the message names the model
//	request_too_large      413     context_overflow  -
//	rate_limit_error       429     rate_limit        -
//	api_error              500     server_error      -
//	timeout_error          504     server_error      timeout
//	overloaded_error       529     rate_limit        overloaded
//	(no body / unknown)    529     rate_limit        overloaded
//	(no body / unknown)    other   driver.ClassifyStatus(status)
//	(any)                  408     network           -   (000 §6.2: a timeout before the response)
//
// Message is error.message and ProviderRequestID the body's request_id
// (the Caller falls back to the request-id header). Retryable follows the
// class unless the response carries x-should-retry, which the Caller
// honours.

// wireError is the error body.
type wireError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

// classify maps a non-2xx Messages API response to an AdapterError.
func classify(status int, _ http.Header, body []byte) *canonical.AdapterError {
	var we wireError
	if err := json.Unmarshal(body, &we); err != nil || we.Error.Type == "" {
		ae := driver.DefaultClassify(status, nil, body)
		if status == 529 {
			ae.Class, ae.Code, ae.Retryable = canonical.ErrRateLimit, canonical.CodeOverloaded, true
		}
		if ae.Message == "" {
			ae.Message = fmt.Sprintf("HTTP %d with an empty body", status)
		}
		return ae
	}
	ae := errorFor(status, we.Error.Type, we.Error.Message)
	ae.ProviderRequestID = we.RequestID
	return ae
}

// errorFor classifies an error of type errType (see the table above);
// status is 0 for a mid-stream error event.
func errorFor(status int, errType, message string) *canonical.AdapterError {
	class, code := driver.ClassifyStatus(status), ""
	if status == 0 {
		class = canonical.ErrOther
	}
	switch errType {
	case "invalid_request_error":
		class = canonical.ErrInvalidRequest
		if isContextOverflow(message) {
			class = canonical.ErrContextOverflow
		}
	case "authentication_error", "permission_error":
		class = canonical.ErrAuth
	case "billing_error":
		class, code = canonical.ErrAuth, canonical.CodeQuotaExceeded
	case "not_found_error":
		class = canonical.ErrInvalidRequest
		if strings.Contains(strings.ToLower(message), "model") {
			code = canonical.CodeModelNotFound
		}
	case "request_too_large":
		class = canonical.ErrContextOverflow
	case "rate_limit_error":
		class = canonical.ErrRateLimit
	case "api_error":
		class = canonical.ErrServer
	case "timeout_error":
		class, code = canonical.ErrServer, canonical.CodeTimeout
	case "overloaded_error":
		class, code = canonical.ErrRateLimit, canonical.CodeOverloaded
	default:
		if status == 529 {
			class, code = canonical.ErrRateLimit, canonical.CodeOverloaded
		}
	}
	if status == http.StatusRequestTimeout {
		// 000 §6.2: a 408 is a timeout before the response, whatever
		// type its body gives.
		class, code = canonical.ErrNetwork, ""
	}
	if message == "" {
		message = errType
	}
	return driver.HTTPError(class, code, status, message)
}

// isContextOverflow recognises the invalid_request_error messages that
// mean the prompt does not fit the model's context window.
func isContextOverflow(message string) bool {
	m := strings.ToLower(message)
	return strings.Contains(m, "prompt is too long") ||
		strings.Contains(m, "exceed context limit") ||
		strings.Contains(m, "context window")
}
