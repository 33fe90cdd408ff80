package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// rpcStatus is a google.rpc.Status, the Gemini API's error body:
// {"error": {"code", "message", "status", "details"}}. The streaming
// endpoint may wrap it in a JSON array.
type rpcStatus struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Status  string         `json:"status"`
	Details []statusDetail `json:"details"`
}

// statusDetail holds the fields of the detail types the adapter reads:
// google.rpc.RetryInfo (retryDelay) and google.rpc.ErrorInfo (reason).
type statusDetail struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
	Reason     string `json:"reason"`
}

// classify maps a non-2xx response to an AdapterError. It starts from the
// HTTP status (driver.ClassifyStatus) and adjusts by the body's
// google.rpc status:
//
//	UNAUTHENTICATED, PERMISSION_DENIED       auth
//	INVALID_ARGUMENT, API key invalid        auth (Gemini answers a bad key with 400)
//	INVALID_ARGUMENT, token limit exceeded   context_overflow
//	INVALID_ARGUMENT, FAILED_PRECONDITION,
//	OUT_OF_RANGE                             invalid_request
//	NOT_FOUND                                invalid_request; code model_not_found when it names a model
//	RESOURCE_EXHAUSTED                       rate_limit; RetryAfter from RetryInfo.retryDelay (capped at 60 s)
//	UNAVAILABLE                              server_error, code overloaded
//	INTERNAL                                 server_error
//	DEADLINE_EXCEEDED                        network, code timeout
//	CANCELLED                                network
//
// HTTP status 408 is network whatever the body says (000 §6.2: a timeout
// before the response). A body that is not a status keeps the status mapping (413
// context_overflow, 429 rate_limit, 5xx server_error, ...).
func classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	s, ok := parseStatus(body)
	if !ok {
		return driver.DefaultClassify(status, h, body)
	}
	return classifyStatus(status, s)
}

// parseStatus finds the google.rpc.Status in an error body: an object
// {"error": ...} or an array whose first element is one.
func parseStatus(body []byte) (*rpcStatus, bool) {
	var env struct {
		Error *rpcStatus `json:"error"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(trimmed, &list) != nil || len(list) == 0 {
			return nil, false
		}
		trimmed = list[0]
	}
	if json.Unmarshal(trimmed, &env) != nil || env.Error == nil {
		return nil, false
	}
	return env.Error, true
}

// classifyStatus classifies a google.rpc.Status received with HTTP status
// httpStatus (or, mid-stream, with the status's own code).
func classifyStatus(httpStatus int, s *rpcStatus) *canonical.AdapterError {
	if httpStatus == 0 {
		httpStatus = s.Code
	}
	class := driver.ClassifyStatus(httpStatus)
	code := ""
	msg := strings.ToLower(s.Message)
	switch s.Status {
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		class = canonical.ErrAuth
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		switch {
		case apiKeyInvalid(s, msg):
			class = canonical.ErrAuth
		case tokenLimit(msg), class == canonical.ErrContextOverflow:
			class = canonical.ErrContextOverflow
		default:
			class = canonical.ErrInvalidRequest
		}
	case "NOT_FOUND":
		class = canonical.ErrInvalidRequest
		if strings.Contains(msg, "model") { // the only resource in the URL
			code = canonical.CodeModelNotFound
		}
	case "RESOURCE_EXHAUSTED":
		class = canonical.ErrRateLimit
	case "UNAVAILABLE":
		class, code = canonical.ErrServer, canonical.CodeOverloaded
	case "INTERNAL":
		class = canonical.ErrServer
	case "DEADLINE_EXCEEDED":
		class, code = canonical.ErrNetwork, canonical.CodeTimeout
	case "CANCELLED":
		class = canonical.ErrNetwork
	}
	if httpStatus == http.StatusRequestTimeout {
		class, code = canonical.ErrNetwork, ""
	}
	message := s.Message
	if message == "" {
		message = http.StatusText(httpStatus)
	}
	if message == "" {
		// A status outside net/http's table, and a status without a
		// message: its name, else the number.
		message = s.Status
	}
	if message == "" {
		message = fmt.Sprintf("HTTP %d", httpStatus)
	}
	ae := driver.HTTPError(class, code, httpStatus, message)
	ae.RetryAfter = retryDelay(s)
	return ae
}

// apiKeyInvalid reports whether a 400 status is Gemini's answer to a bad
// API key (ErrorInfo reason API_KEY_INVALID, "API key not valid").
func apiKeyInvalid(s *rpcStatus, lowerMsg string) bool {
	for _, d := range s.Details {
		if strings.HasPrefix(d.Reason, "API_KEY_") {
			return true
		}
	}
	return strings.Contains(lowerMsg, "api key not valid") || strings.Contains(lowerMsg, "api key expired")
}

// tokenLimit reports whether an INVALID_ARGUMENT message says the input is
// too long ("The input token count (N) exceeds the maximum number of
// tokens allowed (M).").
func tokenLimit(lowerMsg string) bool {
	for _, s := range []string{"exceeds the maximum number of tokens", "input token count", "token limit", "too many tokens", "context window"} {
		if strings.Contains(lowerMsg, s) {
			return true
		}
	}
	return false
}

// retryDelay reads google.rpc.RetryInfo's retryDelay, a protobuf Duration
// in JSON form ("34.4s"), as driver.RetryDelay reads seconds: capped at
// driver.MaxRetryAfter, and a value that overflows or is not finite is
// the maximum wait. It is 0 when absent, malformed or not positive.
func retryDelay(s *rpcStatus) time.Duration {
	for _, d := range s.Details {
		if d.RetryDelay == "" || !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			continue
		}
		num, ok := strings.CutSuffix(strings.TrimSpace(d.RetryDelay), "s")
		if !ok {
			return 0
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0
		}
		return driver.RetryDelay(v)
	}
	return 0
}
