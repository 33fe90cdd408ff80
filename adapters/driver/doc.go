// Package driver is the kit for writing a metis adapter, as
// database/sql/driver is for database drivers: package adapters is what
// callers use (Adapter, Config, Registry), this package is what an
// adapter is made of. A provider package implements the small Provider
// interface for its wire format, and New wraps it in an Adapter that
// runs the one call flow every adapter shares.
//
// # The call flow
//
// Complete and Stream run these steps, in this order, for every provider:
//
//  1. Request id and tool-id map: the caller's request is copied; a
//     missing RequestID gets a new one and a missing ToolIDs a call-local
//     map, so that every error, event and log line of the call carries
//     the id, and request mapping and response decoding agree on tool ids.
//  2. Unknown blocks and history validation: content blocks of a type this
//     version does not know are skipped with one lossy-projection WARN and
//     event each (001 §10.3), or fail the call with invalid_request when
//     their message marks them critical (MessageMetadata.CriticalBlocks);
//     then canonical.ValidateHistory (004 §3), which also refuses a tool
//     call left without its result (003 §7.5). An invalid history is
//     invalid_request before any HTTP call.
//  3. Capability check: CheckCapabilities against the model's declared
//     capabilities (Provider.Capabilities with the registry's overrides
//     applied), unsupported_content before any HTTP call.
//  4. Encode: Provider.Encode builds the wire request (URL, default
//     headers, body) once; every attempt resends the same bytes. A block
//     it drops with Call.Drop that its message marks critical fails the
//     call with invalid_request. Errors of steps 2–4 carry the adapter's
//     name and the request id.
//  5. Per attempt, the headers in this order, later ones winning: the
//     provider's default headers (from Encode), the key
//     (Provider.Authorize, only when Config.APIKey is set), then
//     Config.ExtraHeaders; last, a Provider that is a RequestAuthorizer
//     authorizes the whole request (a refreshed OAuth token, a SigV4
//     signature over the final headers and body).
//  6. Retries: the Caller sends attempts with the policy of 000 §6.4
//     (1+MaxRetries attempts, backoff with jitter or Retry-After, only
//     transient classes), classifying each failure with
//     Provider.Classify. Nothing is retried once a 2xx body arrived,
//     except a non-streamed body the connection cut off: that body is
//     read within its attempt, and the cut is a network failure.
//  7. Decode: the 2xx body goes to Provider.DecodeBody (kept verbatim in
//     Response.RawBody) or Provider.DecodeStream, which drive an
//     Assembler; a decoder panic is an invalid_response error, while a
//     panic in the caller's range-loop body is never recovered: it
//     reaches the caller as it is. Each tool call's input is checked
//     against its tool's schema as its block closes
//     (Assembler.CheckToolInputs, 001 §5.2.4): a bad one is kept, marked
//     with ToolUseBlock.InputError, and reported by a WARN and a
//     tool_input_invalid event. A Provider that is a Finisher sees each
//     response before message.complete.
//
// Lifecycle events (adapters.Event) go to Config.Observer as the call
// runs: llm.call_started per attempt, llm.call_failed and
// llm.retry_scheduled after a failed one, llm.call_completed (or a last
// llm.call_failed) once the body is decoded, tool_input_invalid and
// lossy_projection. They are built on the stack and cost nothing without
// an observer.
//  8. Cancellation and the end of a stream: Adapter.Cancel or the
//     context aborts the call. The body's reads fail once it is done, and
//     the Assembler looks at the context before every event, so events
//     a single read brought in (a fast server can deliver a whole stream
//     in one) are not delivered after a cancel either. A stream that
//     stops early completes with stop reason cancelled (nothing follows)
//     or error (the error follows), as Assembler.Fail describes; the body
//     is always closed.
//  9. Close releases idle connections.
//
// The whole call is bounded by Config.Timeout (DefaultTimeout when
// zero); the idle timeout and the size limits of Limits bound the waits
// for the server and what it sends.
//
// # A 2xx that is not a response
//
// A success status with a body that is not a response is an error, on
// every adapter, streamed or not (the driver checks before and after the
// Provider's decoder):
//
//   - a streamed call answered with a document instead of an event stream
//     (a JSON, HTML or XML content type, or a body that starts with '{',
//     '[' or '<'), or with a body of another declared type that is no
//     event stream (text/plain from a proxy or load balancer, an image)
//     and does not start like one (a comment or a data, event, id or
//     retry field: a stream served without a type is sniffed as
//     text/plain), fails before its first event — except that a provider
//     streaming newline-delimited JSON (Info.JSONLines) reads a body
//     labelled application/x-ndjson (or not labelled) that starts with
//     '{' as its stream;
//   - a non-streamed call answered with an HTML or XML page, an empty
//     body, a body that is not JSON, or JSON null fails before decoding,
//     and one its Provider's decoder cannot read as a response (a JSON
//     error object, {}, a required field missing) fails after.
//
// When the body states an error — a JSON object with an "error" member,
// "type" or "object" "error", or an AWS "__type" — the error is the one it states, as the
// Provider's Classify reads it (with status 0, as for an error inside a
// stream); otherwise it is server_error/invalid_response. Either way the
// AdapterError keeps the HTTP status, and its message the first bytes of
// the body (credentials redacted). Such a call is not retried: a 2xx
// answer arrived. A body the connection cut off is another matter: it is
// network/stream_truncated, and a non-streamed call retries it.
//
// # Writing a provider
//
// A provider package holds, in files named for their jobs:
//
//   - adapter.go: the package doc (the mapping manual), a var Info (the
//     provider's settings: default name, whether it needs a key, its
//     token-estimate tuning), its options struct decoded with
//     DecodeOptions, and New, which calls driver.New;
//   - request.go: Encode, mapping a Call's canonical request to the wire;
//     blocks the wire cannot carry are dropped whole with Call.Drop;
//   - response.go and stream.go: DecodeBody and DecodeStream, feeding an
//     Assembler through the same calls on both paths;
//   - errors.go: Classify, the provider's error table (DefaultClassify is
//     the status-only start);
//   - capabilities.go: Capabilities, honest per model;
//   - estimate.go: the Estimator constants.
//
// Then one line in adapters/providers registers the type for
// Registry.Open, and the emulator learns the wire format. The example in
// examples/toyprovider is a complete provider on this kit.
//
// # The kit
//
// Beyond the call flow the package offers what decoders and encoders
// share: SSEReader (the SSE specification through a fixed buffer),
// NDJSONReader (newline-delimited JSON, each line bounded),
// Assembler (the stream invariants of 000 §5.2 and the cancellation
// rules of §5.3 in one place), Caller (the retry policy), Cancels,
// CheckCapabilities, Estimator, JSONObject and DecodeOrderedJSON (JSON
// with key order kept), the error constructors (InvalidRequest,
// InvalidResponse, HTTPError, NetworkError, StreamError), and
// StreamBody/CompleteBody to run a provider's decoders on a recorded body
// without the network (fuzzing, benchmarks).
package driver
