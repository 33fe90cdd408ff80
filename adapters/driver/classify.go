package driver

import (
	"net/http"

	"github.com/metis-llm/metis/canonical"
)

// ClassifyStatus is the default HTTP status mapping of 000 §6.2; adapters
// adjust it from the provider's error body.
func ClassifyStatus(status int) canonical.ErrorClass {
	switch {
	case status == 401 || status == 403:
		return canonical.ErrAuth
	case status == 408:
		return canonical.ErrNetwork
	case status == 413:
		return canonical.ErrContextOverflow
	case status == 429:
		return canonical.ErrRateLimit
	case status >= 500:
		return canonical.ErrServer
	case status >= 400:
		return canonical.ErrInvalidRequest
	}
	return canonical.ErrOther
}

// DefaultClassify classifies by status alone, keeping the body (truncated)
// as the message.
func DefaultClassify(status int, _ http.Header, body []byte) *canonical.AdapterError {
	msg := string(body)
	if len(msg) > 512 {
		msg = msg[:512] + "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return HTTPError(ClassifyStatus(status), "", status, msg)
}

// HTTPError builds the AdapterError for an HTTP failure of class.
func HTTPError(class canonical.ErrorClass, code string, status int, message string) *canonical.AdapterError {
	return &canonical.AdapterError{Class: class, Code: code, Status: status, Message: message, Retryable: class.Retryable()}
}

// InvalidResponse builds the error for a 2xx body that does not parse or
// breaks the provider's protocol: class server_error, code
// invalid_response, not retryable (the call may have had effects).
func InvalidResponse(provider string, err error, format string, args ...any) *canonical.AdapterError {
	ae := canonical.NewError(canonical.ErrServer, canonical.CodeInvalidResponse, format, args...)
	ae.Provider, ae.Err, ae.Retryable = provider, err, false
	return ae
}

// InvalidRequest builds the error for a request a provider refuses to
// send (000 §6.1 invalid_request, not retryable): Code code, the message
// from format and args. The driver fills in its Provider and RequestID
// when Encode returns it.
func InvalidRequest(code, format string, args ...any) *canonical.AdapterError {
	return canonical.NewError(canonical.ErrInvalidRequest, code, format, args...)
}
