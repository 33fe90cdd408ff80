package driver

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Provider is one wire format: what an adapter author writes. The driver
// runs the call around it (see the package doc for the order) and calls
// these methods at fixed points; a Provider holds no per-call state and
// must be safe for concurrent use.
type Provider interface {
	// Capabilities declares honestly what model can do through this
	// provider (000 §3.4). The driver applies the registry's per-model
	// overrides (models.yaml capabilities) on top.
	Capabilities(model Model) canonical.Capabilities
	// Encode maps a validated, capability-checked call to its HTTP
	// request, built once and resent unchanged on every attempt. Its
	// errors should be *canonical.AdapterError (see InvalidRequest); the
	// driver fills in their Provider and RequestID.
	Encode(c *Call) (*Request, error)
	// Authorize puts key on an attempt's headers (x-api-key,
	// Authorization: Bearer, ...). It is called only when the Config has
	// a key, after Encode's headers and before Config.ExtraHeaders, which
	// win.
	Authorize(h http.Header, key string)
	// DecodeBody decodes a non-streamed 2xx body into a, calling
	// a.Finish. Errors that are not *canonical.AdapterError become
	// invalid_response.
	DecodeBody(c *Call, body []byte, a *Assembler) error
	// DecodeStream reads a streamed 2xx body into a. It returns nil after
	// calling a.Finish on the provider's terminal event, or the error
	// that stopped it (a provider error event, malformed data, a read
	// failure). Returning nil without finishing means the stream was
	// truncated. It should stop reading once a.Stopped() is true.
	DecodeStream(c *Call, body io.Reader, a *Assembler) error
	// Classify maps a non-2xx response to an AdapterError; body is the
	// response body, cut at 1 MiB. DefaultClassify is the status-only
	// mapping to start from. A RetryAfter it sets from the body wins over
	// the headers. Status 0 asks for the error a 2xx body states (see the
	// package doc): classify from the body, as for an error event inside
	// a stream.
	Classify(status int, h http.Header, body []byte) *canonical.AdapterError
}

// RequestAuthorizer is implemented by a Provider whose credentials are
// more than a key in a header: an OAuth access token that expires and is
// refreshed (Vertex AI's Application Default Credentials, Entra ID), or a
// signature over the whole request (AWS SigV4). AuthorizeRequest is
// called for every attempt, whether or not Config has a key, with the
// attempt's request and body, after Authorize and Config.ExtraHeaders,
// so that a signature covers the final headers. An error fails the call
// without sending it: a *canonical.AdapterError is returned as it is
// (class auth, code not_configured for credentials that cannot be found),
// anything else becomes class auth.
type RequestAuthorizer interface {
	AuthorizeRequest(r *http.Request, body []byte) error
}

// Reauthorizer is implemented by a RequestAuthorizer whose credential
// can lapse before the time it was given for (an OAuth access token
// revoked, or expired early by the server's clock). After a 401 the
// driver calls Reauthorize with the refused request: it drops that
// credential and reports whether a different one is now at hand; if so
// the request is built and authorized again and sent at once, once per
// call, without using up a retry. It reports false when the credential
// cannot change (a static token, a key): the 401 then fails the call.
type Reauthorizer interface {
	Reauthorize(refused *http.Request) bool
}

// Finisher is implemented by a Provider that completes or checks every
// response before the caller sees it, streamed or not. Finish is called
// with the assembled response just before message.complete is emitted;
// it may change resp (estimated usage, ProviderRaw). A non-nil error
// makes the call fail: a stream completes with stop reason error and
// then yields the error (000 §6.5); Complete returns it.
type Finisher interface {
	Finish(c *Call, a *Assembler, resp *canonical.Response) error
}

// Model is the model a call names: its canonical id and the name sent on
// the wire (the registry's wire_name, else the id's part after the
// provider prefix).
type Model struct {
	ID       string
	WireName string
}

// Call is one call as the driver hands it to a Provider.
type Call struct {
	// Adapter is the adapter's name (Config.Name): the key of its tool
	// ids in the tool-id map, the Provider of its errors and the adapter
	// of its WARN entries.
	Adapter string
	// Request is the caller's request, copied, with RequestID and
	// ToolIDs always set and Stream telling which path runs.
	Request *canonical.Request
	// Model is the model the request names.
	Model Model
	// Caps are the model's capabilities, overrides applied; the request
	// has been checked against them.
	Caps canonical.Capabilities
	// Stream is true for Adapter.Stream, false for Complete.
	Stream bool
	// Log receives WARN entries (Config.Logger or slog.Default()).
	Log *slog.Logger
	// Limits are the call's limits (its model's options; see Limits).
	// The driver applies them; a decoder with a framing of its own
	// bounds its frames by MaxEventBytes.
	Limits Limits
	// State is the Provider's own: anything Encode wants its decoders or
	// Finish to know about this call.
	State any

	observer adapters.Observer
	ctx      context.Context
	// critical is the first block marked critical that was dropped.
	critical error
}

// Request is the HTTP request Encode builds for a call.
type Request struct {
	// Method is the HTTP method; "" means POST.
	Method string
	// URL is the endpoint, query included.
	URL string
	// Header holds the provider's default headers (Content-Type, API
	// version, ...). The key and Config.ExtraHeaders are added per
	// attempt.
	Header http.Header
	// Body is sent verbatim on every attempt.
	Body []byte
}

// KeyRule says when a provider cannot work without an API key.
type KeyRule int

// The key rules.
const (
	// KeyOptional: a key is sent when configured (local servers).
	KeyOptional KeyRule = iota
	// KeyRequired: New fails without a key.
	KeyRequired
	// KeyRequiredByDefault: New fails without a key when the base URL is
	// unset or on the host of Info.DefaultBaseURL; another host (a proxy
	// that authenticates by other means) may take none.
	KeyRequiredByDefault
)

// Info is what the driver needs to know about a provider beyond its
// methods: its settings, kept in the provider's own package.
type Info struct {
	// Name is the adapter name used when Config.Name is empty.
	Name string
	// DefaultBaseURL is the provider's endpoint root, for KeyRule.
	DefaultBaseURL string
	// Key says whether the provider needs an API key.
	Key KeyRule
	// Estimator is the provider's token-estimate tuning
	// (Adapter.EstimateInputTokens).
	Estimator Estimator
	// ImagesProjected makes the capability check let through images the
	// model cannot take, because the provider's Encode drops them whole
	// with the lossy-projection WARN (000 §10.1.5 allows either).
	ImagesProjected bool
	// JSONLines says the provider streams newline-delimited JSON (one
	// JSON object per line, application/x-ndjson, as Ollama's native API
	// does; see NDJSONReader) rather than server-sent events: a streamed
	// body that starts with '{' and is labelled application/x-ndjson (or
	// not labelled) is its stream, not a document. Any other document —
	// HTML, XML, a JSON object labelled application/json or
	// text/event-stream — is still refused.
	JSONLines bool
}
