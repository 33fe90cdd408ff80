// Package faults injects provider failures into HTTP traffic at replay
// time. Cassettes hold only real, successful exchanges (a recorder cannot
// capture a broken one); everything else — error statuses, Retry-After,
// resets, mid-stream error events, truncation, stalls, garbage — is made
// here, by an http.RoundTripper in front of the replay.
//
// # Use
//
//	f, err := faults.Parse(map[string]any{"status": 429, "retry_after": 2})
//	...
//	client := &http.Client{Transport: faults.Transport(player, f)}
//
// FromSpec has the signature of harness.Config.Faults and is what the
// harness plugs in for a scenario's inject step.
//
// A Fault applies to Times consecutive attempts (default 1) and then lets
// requests through to the next transport, so that a retry scenario can
// count attempts. Transport takes several faults: each attempt gets the
// first fault with attempts left, so a sequence such as "429, then a
// truncated stream, then success" is three faults in a row.
//
// # Spec
//
// A spec is the mapping of an inject step, as written in the scenario:
//
//	kind            status (default when status or error is given), body, reset,
//	                error_event, truncate, partial, stall, malformed, drip,
//	                burst
//	times           attempts the fault applies to; an integer ≥ 1, default 1
//
// kind status answers without calling the next transport:
//
//	status          HTTP status, 100..599; default: the provider's status for error
//	error           which error body to send: invalid_request, auth, rate_limit,
//	                overloaded, server_error, context_overflow; default: inferred
//	                from status (401/403 auth, 413 context_overflow, 429 rate_limit,
//	                503/529 overloaded, other 5xx server_error, else invalid_request;
//	                on the Anthropic wire 503 is server_error, api_error: its
//	                errors page documents overloaded_error as 529 alone)
//	message         replaces the body's message
//	body            the body verbatim (a string, or a mapping sent as JSON)
//	headers         extra response headers (string values)
//	retry_after     Retry-After: seconds (a number) or an HTTP date (a string)
//	retry_after_ms  retry-after-ms, as OpenAI sends it
//
// Without body, the error body is the one the request's provider sends for
// that error, detected from the request path: /v1/messages Anthropic,
// /v1/responses OpenAI Responses, /v1/chat/completions OpenAI Chat
// Completions (and OpenAI-compatible servers), :generateContent and
// :streamGenerateContent Gemini, /api/chat Ollama's native API. Unknown
// paths get the OpenAI shape.
//
// kind body answers a success status with a body that is not a response,
// without calling the next transport (a gateway's HTML page, an error
// object sent with 200, JSON null):
//
//	body            the whole body: a string verbatim ("null" is JSON null,
//	                "" an empty body), or a mapping sent as JSON
//	error           instead of body, the provider's own error body for that
//	                error, as a status fault sends it, but with a 2xx status
//	message         replaces that error body's message
//	content_type    the Content-Type, default application/json
//	status          a 2xx status, default 200
//	headers         extra response headers
//
// The stream kinds call the next transport and alter the body of its
// successful (2xx) response; other responses pass through untouched. A
// text/event-stream body is handled event by event, an application/x-ndjson
// body (Ollama) line by line; any other body counts as one event.
//
//	after_events    how many events pass before the fault strikes (default 0)
//
//	error_event     then the provider's own error event, and the body ends:
//	                Anthropic "event: error" (overloaded_error by default),
//	                Chat Completions data: {"error":{...}}, Responses an "error"
//	                event and "response.failed" (continuing the stream's
//	                sequence_number and response object), Gemini a google.rpc
//	                status chunk, Ollama an {"error": ...} line. error and
//	                message choose the error as above; body replaces the
//	                event's data verbatim.
//	truncate        then the connection closes before the body's end, without
//	                the terminal event: between two events. Reads end with
//	                io.ErrUnexpectedEOF, as net/http reports a body short of
//	                its Content-Length or chunked without its last chunk.
//	partial         then the first half of the next event, and the connection
//	                closes in the middle of it (io.ErrUnexpectedEOF, as for
//	                truncate): an event's name and the start of its data
//	                line's JSON value, cut inside the value, with no blank
//	                line to dispatch it. A non-streamed body is cut in the
//	                middle of its JSON document.
//	malformed       then "data: {not json" is inserted, and the rest follows;
//	                on the Anthropic wire, whose events are all named and
//	                whose clients skip event types they do not know, as a
//	                named event ("event: content_block_delta"). body
//	                replaces "{not json" with the event data given; on
//	                Bedrock's InvokeModel stream that data is the Messages
//	                event inside a well-formed chunk ({"bytes": base64}),
//	                where without body the chunk's payload itself is the
//	                garbage.
//	stall           then no byte arrives until the request's context is done,
//	                so the caller's timeout fires (at once on a virtual
//	                clock: see OnStall). Without after_events the stall
//	                comes before the response headers.
//	reset           then the connection is reset: a *net.OpError wrapping
//	                syscall.ECONNRESET. Without after_events the reset comes
//	                before the response headers.
//
// A stream with fewer events than after_events ends as it would have.
// kind drip delivers the whole body in pieces:
//
//	chunk_bytes     bytes per read, default 1
//	delay_ms        pause between pieces, through Injector.Sleep (no pause
//	                when Sleep is nil, the default: tests never sleep)
//
// kind burst delivers the whole body in as few reads as the reader's
// buffer allows, many events per read, as a socket does when a fast
// server's stream arrived before the client read it (replay hands out one
// event per read). A consumer that cancels mid-stream then finds the
// rest of the stream already read: the adapter must not deliver it.
// It takes no fields but times, and changes nothing for a body read whole.
//
// Several faults in a row go in one spec as
//
//	sequence: [{status: 429, retry_after: 1}, {kind: truncate, after_events: 3}]
//
// Every body honours the request's context: once it is done, reads fail
// with its error. Parse reports a bad spec with an error naming the field.
package faults
