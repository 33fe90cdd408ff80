package emulator

import (
	"net/http"
	"time"

	"github.com/metis-llm/metis/internal/wire"
)

// ErrorKind is a kind of failure a Reply can script. Each provider renders
// it with its own status and error body, as internal/wire does for fault
// injection too, so a scripted failure and an injected one are the same
// bytes.
type ErrorKind = wire.Kind

// Error kinds, with the status each provider answers them with
// (Anthropic / OpenAI / Gemini; internal/wire has the bodies).
const (
	// ErrorInvalidRequest: 400 / 400 / 400 INVALID_ARGUMENT.
	ErrorInvalidRequest = wire.InvalidRequest
	// ErrorAuth is a wrong key: 401 / 401 / 400 INVALID_ARGUMENT with
	// reason API_KEY_INVALID (the real Gemini API's answer).
	ErrorAuth = wire.Auth
	// ErrorRateLimit: 429 / 429 / 429 RESOURCE_EXHAUSTED.
	ErrorRateLimit = wire.RateLimit
	// ErrorOverloaded: 529 / 503 / 503 UNAVAILABLE.
	ErrorOverloaded = wire.Overloaded
	// ErrorServer: 500 / 500 / 500 INTERNAL.
	ErrorServer = wire.Server
	// ErrorContextOverflow: 400 / 400 context_length_exceeded / 400.
	ErrorContextOverflow = wire.ContextOverflow
	// ErrorModelNotFound: 404 / 404 model_not_found / 404 NOT_FOUND.
	ErrorModelNotFound = wire.ModelNotFound

	// errorMissingKey is a request without a key (answered before any
	// script is consulted).
	errorMissingKey = wire.MissingKey
	// errorScript is a broken or exhausted script, or a Responder error:
	// a server error carrying the emulator's message.
	errorScript ErrorKind = "emulator"
)

// retryHint is the retry hint of the emulator's 429s: Anthropic's
// retry-after header, Gemini's RetryInfo.
const retryHint = time.Second

// kindForStatus infers the kind of a failure scripted by status alone.
func kindForStatus(status int) ErrorKind { return wire.KindForStatus(status) }

// apiError is one error answer: status, extra headers and body.
type apiError struct {
	status int
	header http.Header
	body   []byte
}

// wireError returns the provider's rendering of kind for api. message
// overrides the provider's default message when non-empty; model names
// the requested model; reqID is the emulator's request id.
func wireError(api API, kind ErrorKind, message, model, reqID string) wire.Error {
	if kind == errorScript {
		kind = wire.Server
	}
	e := wire.ErrorFor(wire.API(api), kind, model)
	if message != "" {
		e.Message = message
	}
	if api == Anthropic {
		e.RequestID = reqID
	}
	if e.Status == http.StatusTooManyRequests && api != OpenAIResponses && api != OpenAIChat {
		e.RetryAfter = retryHint
	}
	return e
}

// withCode applies a reply's ErrorCode: OpenAI's error.code and
// error.type, Anthropic's error.type, Gemini's status.
func withCode(api API, e wire.Error, code string) wire.Error {
	if code == "" {
		return e
	}
	e.Type = code
	if api == OpenAIChat || api == OpenAIResponses {
		e.Code = code
	}
	return e
}

// render turns e into the answer for api.
func render(api API, e wire.Error) apiError {
	return apiError{status: e.Status, header: e.Header(wire.API(api)), body: e.Body(wire.API(api))}
}

// errorFor renders a failure of kind for api (see wireError), or for a
// registered Wire.
func errorFor(api API, kind ErrorKind, message, model, reqID string) apiError {
	if wr := wireOf(api); wr != nil {
		return wireFailure(wr, kind, message)
	}
	return render(api, wireError(api, kind, message, model, reqID))
}

// scriptedError renders the failure a Reply scripts.
func scriptedError(api API, r *Reply, model, reqID string) apiError {
	kind := r.Error
	if kind == "" {
		kind = kindForStatus(r.Status)
	}
	if wr := wireOf(api); wr != nil {
		e := wireFailure(wr, kind, r.ErrorMessage)
		switch {
		case r.Status != 0:
			e.status = r.Status
		case len(r.ErrorBody) > 0 && r.Error == "":
			e.status = http.StatusBadRequest
		}
		if len(r.ErrorBody) > 0 {
			e.body = r.ErrorBody
		}
		return e
	}
	e := withCode(api, wireError(api, kind, r.ErrorMessage, model, reqID), r.ErrorCode)
	if len(r.ErrorBody) > 0 {
		status := r.Status
		if status == 0 && r.Error == "" {
			status = http.StatusBadRequest
		}
		e = e.WithStatus(wire.API(api), status)
		out := render(api, e)
		out.body = r.ErrorBody
		return out
	}
	return render(api, e.WithStatus(wire.API(api), r.Status))
}

// write sends e.
func (e apiError) write(w http.ResponseWriter) {
	h := w.Header()
	for k, vs := range e.header {
		h[k] = vs
	}
	w.WriteHeader(e.status)
	w.Write(e.body) //nolint:errcheck // the client went away; nothing to do
}

// marshal encodes v compactly without HTML escaping, as the APIs do.
func marshal(v any) []byte { return wire.JSON(v, "") }

// marshalIndent encodes v indented, ending with a newline.
func marshalIndent(v any, indent string) []byte { return wire.JSON(v, indent) }
