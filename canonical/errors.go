package canonical

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/metis-llm/metis/internal/secrets"
)

// ErrorClass is the closed set of failure classes of 000 §6.1.
type ErrorClass string

// Error classes.
const (
	ErrRateLimit       ErrorClass = "rate_limit"
	ErrAuth            ErrorClass = "auth"
	ErrServer          ErrorClass = "server_error"
	ErrNetwork         ErrorClass = "network"
	ErrContextOverflow ErrorClass = "context_overflow"
	ErrInvalidRequest  ErrorClass = "invalid_request"
	ErrCancelled       ErrorClass = "cancelled"
	ErrOther           ErrorClass = "other"
)

// Retryable reports whether an adapter retries this class internally.
func (c ErrorClass) Retryable() bool {
	switch c {
	case ErrRateLimit, ErrServer, ErrNetwork:
		return true
	}
	return false
}

// Finer error codes, carried in AdapterError.Code where the sources
// distinguish more than the class does. The mapping onto classes is in the
// package documentation.
const (
	CodeModelNotFound        = "model_not_found"
	CodeModelNotLoaded       = "model_not_loaded"
	CodeInvalidResponse      = "invalid_response"
	CodeInvalidHistory       = "invalid_history"
	CodeInvalidToolSchema    = "invalid_tool_schema"
	CodeToolInputInvalid     = "tool_input_invalid"
	CodeToolCallState        = "tool_call_state"
	CodeStrictSchemaRejected = "strict_schema_rejected"
	CodeUnsupportedContent   = "unsupported_content"
	CodeOverloaded           = "overloaded"
	CodeTimeout              = "timeout"
	CodeStreamTruncated      = "stream_truncated"
	CodeNotConfigured        = "not_configured"
	CodeMalformedToolCall    = "malformed_tool_call"
	CodeQuotaExceeded        = "insufficient_quota"
	CodeUnknownFinishReason  = "unknown_finish_reason"
	// CodeContentFilter: the provider's content filter refused the
	// prompt (Azure OpenAI's 400 content_filter). A completion the filter
	// stops is a normal response with stop reason content_filter.
	CodeContentFilter = "content_filter"
)

// AdapterError is the one error type adapters return (000 §6.3). Inspect
// it with errors.As; Unwrap exposes the underlying cause.
//
// However it is printed — Error (so %v, %s, %q), %#v, slog, JSON —
// anything shaped like a credential in its message or its cause (API
// keys, tokens, JWTs; see internal/secrets) is replaced by [REDACTED], so
// that a key a provider echoes back never reaches a log or a report. The
// fields themselves keep what the provider said.
type AdapterError struct {
	Class ErrorClass `json:"class"`
	// Code is a finer, stable reason such as CodeModelNotFound.
	Code string `json:"code,omitempty"`
	// Provider is the adapter name that produced the error.
	Provider string `json:"provider,omitempty"`
	// Status is the provider's HTTP status, 0 when none was received.
	Status int `json:"status,omitempty"`
	// Message is the provider's message (or ours when none).
	Message string `json:"message"`
	// Retryable reports whether the class is transient (the adapter
	// retried it internally before giving up).
	Retryable bool `json:"retryable"`
	// RequestID is the canonical request id; ProviderRequestID the
	// provider's own (request-id header or body field).
	RequestID         string `json:"request_id,omitempty"`
	ProviderRequestID string `json:"provider_request_id,omitempty"`
	// RetryAfter is the provider's hint, capped at 60 s; 0 when absent.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Attempts is how many HTTP attempts were made in all.
	Attempts int `json:"attempts,omitempty"`
	// Err is the underlying cause, if any.
	Err error `json:"-"`
}

// Error formats the class, code, status, message and cause, with
// credentials redacted.
func (e *AdapterError) Error() string { return secrets.Redact(e.text()) }

func (e *AdapterError) text() string {
	s := string(e.Class)
	if e.Code != "" {
		s += "/" + e.Code
	}
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	// The cause is added unless the message already quotes it (a message
	// built with "%v" of its cause would otherwise say it twice).
	if e.Err != nil {
		if cause := e.Err.Error(); cause != "" && !strings.Contains(e.Message, cause) {
			s += ": " + cause
		}
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *AdapterError) Unwrap() error { return e.Err }

// GoString is %#v's form: the fields, credentials redacted.
func (e *AdapterError) GoString() string {
	cause := "nil"
	if e.Err != nil {
		cause = fmt.Sprintf("%q", secrets.Redact(e.Err.Error()))
	}
	return fmt.Sprintf("&canonical.AdapterError{Class:%q, Code:%q, Provider:%q, Status:%d, Message:%q, Retryable:%t, RequestID:%q, ProviderRequestID:%q, RetryAfter:%d, Attempts:%d, Err:%s}",
		e.Class, e.Code, e.Provider, e.Status, secrets.Redact(e.Message), e.Retryable, e.RequestID, e.ProviderRequestID, e.RetryAfter, e.Attempts, cause)
}

// LogValue makes slog log the error as a group of its fields, credentials
// redacted.
func (e *AdapterError) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("class", string(e.Class))}
	if e.Code != "" {
		attrs = append(attrs, slog.String("code", e.Code))
	}
	if e.Provider != "" {
		attrs = append(attrs, slog.String("provider", e.Provider))
	}
	if e.Status != 0 {
		attrs = append(attrs, slog.Int("status", e.Status))
	}
	attrs = append(attrs, slog.String("message", secrets.Redact(e.Message)))
	if e.RequestID != "" {
		attrs = append(attrs, slog.String("request_id", e.RequestID))
	}
	if e.ProviderRequestID != "" {
		attrs = append(attrs, slog.String("provider_request_id", e.ProviderRequestID))
	}
	if e.Attempts != 0 {
		attrs = append(attrs, slog.Int("attempts", e.Attempts))
	}
	if e.RetryAfter != 0 {
		attrs = append(attrs, slog.Duration("retry_after", e.RetryAfter))
	}
	if e.Err != nil {
		attrs = append(attrs, slog.String("cause", secrets.Redact(e.Err.Error())))
	}
	return slog.GroupValue(attrs...)
}

// adapterErrorJSON has AdapterError's fields without its methods.
type adapterErrorJSON AdapterError

// MarshalJSON writes the fields with credentials in the message
// redacted.
func (e AdapterError) MarshalJSON() ([]byte, error) {
	c := adapterErrorJSON(e)
	c.Message = secrets.Redact(c.Message)
	return json.Marshal(c)
}

// ClassOf returns the ErrorClass of err: its AdapterError's class, or
// ErrOther for any other non-nil error, or "" for nil.
func ClassOf(err error) ErrorClass {
	if err == nil {
		return ""
	}
	var ae *AdapterError
	if errors.As(err, &ae) {
		return ae.Class
	}
	return ErrOther
}

// CodeOf returns the Code of err's AdapterError, or "".
func CodeOf(err error) string {
	var ae *AdapterError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// NewError builds an AdapterError of class with a formatted message. The
// Retryable flag follows the class.
func NewError(class ErrorClass, code, format string, args ...any) *AdapterError {
	return &AdapterError{Class: class, Code: code, Message: fmt.Sprintf(format, args...), Retryable: class.Retryable()}
}
