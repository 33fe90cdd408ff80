// Package canonical is metis's data contract: the provider-neutral message
// format of seed 001 and the request, response, stream-event, error and
// capability shapes of seed 000 §3. Adapters translate it to and from each
// provider's wire format; sessions persist it; the harness checks it.
//
// The package does no I/O and names no provider.
//
// # Opaque provider tokens
//
// Some providers return tokens that must be sent back to them verbatim and
// to nobody else. Their homes:
//
//   - ThinkingBlock.Signature holds the signature of the provider that
//     produced the message (MessageMetadata.Provider): Anthropic's thinking
//     signature, the encrypted_content of an OpenAI Responses reasoning
//     item, or a Gemini thought part's thoughtSignature.
//   - MessageMetadata.ProviderRaw[provider] holds everything else, as JSON
//     the adapter of that provider defines (for example Gemini
//     thoughtSignatures on function-call and text parts, keyed by content
//     block index, or an OpenAI reasoning item's id).
//
// Before a message is sent to a provider other than the one that produced
// it, signatures are stripped and other providers' ProviderRaw entries are
// ignored.
//
// # Validation
//
// ValidateMessage checks one message against the invariants of 001 §5;
// ValidateHistory checks a request's messages and tools as 004 §3 and §5
// require before anything is sent; ValidateToolDefinition and
// CheckToolSchema check a tool at registration against the portable JSON
// Schema subset of 001 §5.4; ValidateToolInput checks a tool_use input
// against its tool's schema. All report every violation found, as an
// *AdapterError of class invalid_request whose Err is the Violations, each
// naming its place: "messages[3].content[1]: tool_result references
// unknown tool_use id tu_…", "tools[0].input_schema#/properties/x/$ref: …".
//
// # Identity, hashing and versions
//
// NewMessageID, NewToolUseID and NewRequestID make monotonic ULID-based
// ids. CanonicalJSON is the one canonical JSON form (sorted keys, no
// spacing, numbers verbatim) used for hashing, goldens and request
// matching; HashMessage is the SHA-256 of a message's canonical JSON.
// DecodeMessage reads a stored message of any schema version, running the
// Migrations registered to bring it up to SchemaVersion (001 §10).
//
// # Error mapping
//
// Every failure is an *AdapterError with one ErrorClass of 000 §6.1 and,
// where the sources distinguish more, a Code. The error categories of
// 004 §7 and the codes of 003 §9 map onto them as follows.
//
//	004 §7 category            ErrorClass        Code
//	-------------------------  ----------------  ------------------------
//	provider_authentication    auth              (none)
//	provider_unavailable       server_error      (none) for 5xx,
//	                                             overloaded for 529 or an
//	                                             overloaded_error body
//	                           network           (none) before a response;
//	                                             timeout when a deadline
//	                                             passed; stream_truncated
//	                                             when a stream broke off
//	provider_invalid_model     invalid_request   model_not_found
//	provider_model_not_loaded  server_error      model_not_loaded
//	                                             (transient, retried)
//	provider_rate_limit        rate_limit        (none); insufficient_quota
//	                                             for exhausted billing
//	                                             quota (not retried)
//	provider_invalid_response  server_error      invalid_response,
//	                                             malformed_tool_call, or
//	                                             unknown_finish_reason
//	                                             (none is retried: the call
//	                                             may have had effects)
//	provider_invalid_request   invalid_request   invalid_history,
//	                                             invalid_tool_schema,
//	                                             invalid_tool_definition,
//	                                             tool_input_invalid or
//	                                             unsupported_content from
//	                                             pre-send validation;
//	                                             (none) for a provider 400;
//	                                             content_filter for a
//	                                             prompt the provider's
//	                                             content filter refused
//	finish_reason "error"      -                 not an error: the call
//	                                             ends with StopError (000
//	                                             §6.5)
//
//	003 §9 code                ErrorClass        Code
//	-------------------------  ----------------  ------------------------
//	rate_limit                 rate_limit        (none)
//	auth                       auth              (none)
//	context_length             context_overflow  (none)
//	invalid_request            invalid_request   (none)
//	invalid_request (OpenAI    invalid_request   strict_schema_rejected
//	  strict schema rejected)
//	server_error (Anthropic    server_error      overloaded
//	  overloaded_error)
//	server_error (api_error,   server_error      (none)
//	  other 5xx)
//	tool_error (OpenAI "No     invalid_request   tool_call_state (003
//	  tool call/output found")                   retries it; metis does
//	                                             not, as the same history
//	                                             fails the same way)
//	unknown                    other             (none)
//
// Codes raised by metis itself rather than a provider: not_configured
// (class auth: no adapter configured or no API key for the model) and the
// validation codes above. Cancellation is class cancelled with no code.
// AdapterError.Retryable starts from ErrorClass.Retryable (rate_limit,
// server_error and network) and adapters clear it where the table says a
// code is not retried.
package canonical
