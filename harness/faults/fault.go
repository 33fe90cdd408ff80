package faults

import (
	"net/http"
	"time"
)

// Kind is what a Fault does to an attempt.
type Kind string

// The fault kinds; the package documentation describes each.
const (
	KindStatus     Kind = "status"
	KindReset      Kind = "reset"
	KindErrorEvent Kind = "error_event"
	KindTruncate   Kind = "truncate"
	KindStall      Kind = "stall"
	KindMalformed  Kind = "malformed"
	KindDrip       Kind = "drip"
)

// kinds lists the kinds in the order error messages name them.
var kinds = []Kind{KindStatus, KindReset, KindErrorEvent, KindTruncate, KindStall, KindMalformed, KindDrip}

// ErrorKind selects which of the provider's error bodies a status or
// error_event fault sends.
type ErrorKind string

// The error kinds, with the status each provider answers them with
// (Anthropic / OpenAI / Gemini).
const (
	// ErrorInvalidRequest: 400 / 400 / 400 INVALID_ARGUMENT.
	ErrorInvalidRequest ErrorKind = "invalid_request"
	// ErrorAuth: 401 / 401 / 401 UNAUTHENTICATED.
	ErrorAuth ErrorKind = "auth"
	// ErrorRateLimit: 429 / 429 / 429 RESOURCE_EXHAUSTED.
	ErrorRateLimit ErrorKind = "rate_limit"
	// ErrorOverloaded: 529 / 503 / 503 UNAVAILABLE.
	ErrorOverloaded ErrorKind = "overloaded"
	// ErrorServer: 500 / 500 / 500 INTERNAL.
	ErrorServer ErrorKind = "server_error"
	// ErrorContextOverflow: 400 / 400 context_length_exceeded / 400.
	ErrorContextOverflow ErrorKind = "context_overflow"
)

var errorKinds = []ErrorKind{ErrorInvalidRequest, ErrorAuth, ErrorRateLimit, ErrorOverloaded, ErrorServer, ErrorContextOverflow}

// BeforeResponse, as a Fault's AfterEvents, makes a stall or reset strike
// before the response headers arrive.
const BeforeResponse = -1

// Fault is one injected failure. Parse builds it from a scenario's spec;
// the zero value of each field is its default.
type Fault struct {
	Kind Kind
	// Times is how many consecutive attempts the fault applies to; values
	// below 1 mean 1.
	Times int

	// Status is the HTTP status of a status fault; 0 means the provider's
	// status for Error.
	Status int
	// Error selects the provider error body of a status or error_event
	// fault; "" means inferred from Status (status), or overloaded for
	// Anthropic and server_error elsewhere (error_event).
	Error ErrorKind
	// Message replaces the message of the generated error body.
	Message string
	// Body replaces the generated body (status) or event data
	// (error_event) verbatim.
	Body []byte
	// Header holds extra response headers of a status fault.
	Header http.Header

	// AfterEvents is how many events of the response pass before a stream
	// fault strikes; BeforeResponse makes a stall or reset strike before
	// the response.
	AfterEvents int

	// ChunkBytes is the size of a drip fault's pieces; values below 1
	// mean 1. Delay is the pause between them, passed to Injector.Sleep.
	ChunkBytes int
	Delay      time.Duration
}

func (f *Fault) times() int { return max(f.Times, 1) }

// errorKindFor infers the error a status stands for.
func errorKindFor(status int) ErrorKind {
	switch {
	case status == 401 || status == 403:
		return ErrorAuth
	case status == 413:
		return ErrorContextOverflow
	case status == 429:
		return ErrorRateLimit
	case status == 503 || status == 529:
		return ErrorOverloaded
	case status >= 500:
		return ErrorServer
	}
	return ErrorInvalidRequest
}
