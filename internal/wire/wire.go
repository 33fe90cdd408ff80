// Package wire is the one home of each provider's failure conventions on
// the wire: the HTTP status, headers and error body a provider answers a
// kind of failure with, and the error event it sends mid-stream. The
// emulator (which plays the providers), fault injection (which fakes
// their failures at replay time) and the adapters' tests all build
// provider errors here, so the three cannot disagree.
//
// The renderings follow the real APIs, checked against the vendored real
// recordings (testdata/recordings) and the providers' documentation: an
// Anthropic error is {"type":"error","error":{"type","message"},
// "request_id"} with request-id and x-should-retry headers; an OpenAI
// error is {"error":{"message","type","param","code"}} indented four
// spaces; a Gemini error is a google.rpc.Status {"error":{"code",
// "message","status","details"}} indented two spaces, and a bad API key
// is 400 INVALID_ARGUMENT with reason API_KEY_INVALID (a missing one 403
// PERMISSION_DENIED), not 401; an Ollama error is {"error": "message"},
// mid-stream an NDJSON line of the same shape.
//
// The cloud platforms (cloud.go) carry these formats with failures of
// their own: Vertex AI's OAuth and quota errors as google.rpc.Status,
// Azure OpenAI's codes, Bedrock's exceptions (x-amzn-ErrorType, and
// event-stream exception frames encoded with the AWS SDK's eventstream
// package, the package's one dependency beyond the standard library).
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// API is a wire protocol. The names are the emulator's, fault
// injection's and the recording folders'.
type API string

// The protocols.
const (
	Anthropic       API = "anthropic"
	OpenAIResponses API = "openai-responses"
	OpenAIChat      API = "openai-chat"
	Gemini          API = "gemini"
	// Unknown is any other protocol; it gets OpenAI-shaped errors, the
	// shape most OpenAI-compatible servers use.
	Unknown API = ""
)

// Kind is a kind of failure, which each provider renders with its own
// status and body.
type Kind string

// The kinds, with the status each provider answers them with
// (Anthropic / OpenAI / Gemini).
const (
	// InvalidRequest: 400 invalid_request_error / 400 / 400 INVALID_ARGUMENT.
	InvalidRequest Kind = "invalid_request"
	// Auth is a wrong key: 401 authentication_error / 401 invalid_api_key
	// / 400 INVALID_ARGUMENT with reason API_KEY_INVALID.
	Auth Kind = "auth"
	// MissingKey is a request without a key: 401 / 401 / 403
	// PERMISSION_DENIED.
	MissingKey Kind = "missing_key"
	// RateLimit: 429 rate_limit_error / 429 rate_limit_exceeded / 429
	// RESOURCE_EXHAUSTED.
	RateLimit Kind = "rate_limit"
	// Overloaded: 529 overloaded_error / 503 / 503 UNAVAILABLE.
	Overloaded Kind = "overloaded"
	// Server: 500 api_error / 500 server_error / 500 INTERNAL.
	Server Kind = "server_error"
	// ContextOverflow: 400 "prompt is too long" / 400
	// context_length_exceeded / 400 INVALID_ARGUMENT (token count).
	ContextOverflow Kind = "context_overflow"
	// ModelNotFound: 404 not_found_error / 404 model_not_found / 404
	// NOT_FOUND.
	ModelNotFound Kind = "model_not_found"
)

// Kinds lists the kinds a script or a fault may name, in the order error
// messages list them.
var Kinds = []Kind{InvalidRequest, Auth, RateLimit, Overloaded, Server, ContextOverflow, ModelNotFound}

// KindForStatus infers the kind of failure a bare HTTP status stands for.
func KindForStatus(status int) Kind {
	switch {
	case status == 401 || status == 403:
		return Auth
	case status == 404:
		return ModelNotFound
	case status == 413:
		return ContextOverflow
	case status == 429:
		return RateLimit
	case status == 503 || status == 529:
		return Overloaded
	case status >= 500:
		return Server
	}
	return InvalidRequest
}

// JSON encodes v as the APIs write JSON: without HTML escaping, compact
// when indent is "" (no trailing newline), else indented with a trailing
// newline. v is one of the callers' own types, so an encoding error is a
// programming error and panics.
func JSON(v any, indent string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("wire: encoding %T: %v", v, err))
	}
	if indent == "" {
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	return buf.Bytes()
}

// nullable is a JSON string, or null when empty.
type nullable string

func (n nullable) MarshalJSON() ([]byte, error) {
	if n == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(n))
}
