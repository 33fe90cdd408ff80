package faults

import (
	"net/http"
	"time"

	"github.com/metis-llm/metis/internal/wire"
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
	KindPartial    Kind = "partial"
	KindBody       Kind = "body"
	KindBurst      Kind = "burst"
)

// kinds lists the kinds in the order error messages name them.
var kinds = []Kind{KindStatus, KindBody, KindReset, KindErrorEvent, KindTruncate, KindPartial, KindStall, KindMalformed, KindDrip, KindBurst}

// Kinds returns every fault kind, in the order the documentation lists
// them.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// NeedsStream reports whether faults of kind k apply only to a
// text/event-stream response (error_event, malformed, and burst, which
// changes nothing for a body read whole); the others apply to
// non-streamed responses too.
func NeedsStream(k Kind) bool { return k == KindErrorEvent || k == KindMalformed || k == KindBurst }

// ErrorKind selects which of the provider's error bodies a status or
// error_event fault sends: the failure kinds of internal/wire, which the
// emulator renders the same way.
type ErrorKind = wire.Kind

// The error kinds, with the status each provider answers them with
// (internal/wire has the table).
const (
	ErrorInvalidRequest  = wire.InvalidRequest
	ErrorAuth            = wire.Auth
	ErrorRateLimit       = wire.RateLimit
	ErrorOverloaded      = wire.Overloaded
	ErrorServer          = wire.Server
	ErrorContextOverflow = wire.ContextOverflow
	ErrorModelNotFound   = wire.ModelNotFound
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

	// Status is the HTTP status of a status fault (0 means the provider's
	// status for Error) or of a body fault (0 means 200).
	Status int
	// Error selects the provider error body of a status or error_event
	// fault; "" means inferred from Status (status), or overloaded for
	// Anthropic and server_error elsewhere (error_event).
	Error ErrorKind
	// Message replaces the message of the generated error body.
	Message string
	// Body replaces the generated body (status) or event data
	// (error_event, malformed) verbatim; it is the whole body of a body
	// fault.
	Body []byte
	// ContentType is the Content-Type of a body fault's answer; ""
	// means application/json.
	ContentType string
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

// errorKindFor infers the error a status stands for on api. Anthropic
// documents overloaded_error as HTTP 529 and api_error as its body for
// an unexpected internal error (docs.claude.com/en/api/errors); a 503 is
// not one of its statuses, so on its wire a 503 carries api_error, not
// the overloaded_error an adapter classifying by body would take for a
// 529.
func errorKindFor(api API, status int) ErrorKind {
	k := wire.KindForStatus(status)
	if api == Anthropic && k == ErrorOverloaded && status != 529 {
		return ErrorServer
	}
	return k
}
