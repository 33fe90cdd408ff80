// Package emulator is a loopback HTTP server that answers the model APIs
// metis talks to — Anthropic Messages, OpenAI Responses, OpenAI Chat
// Completions and Gemini generateContent — from scripted replies, in each
// provider's real wire format. It lets adapters, the harness and `record`
// run end to end with no network and no real key.
//
// # Use
//
//	srv := emulator.NewServer()
//	defer srv.Close()
//	srv.Enqueue(emulator.Reply{Text: "Hello!"})
//	srv.Enqueue(emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)}}})
//	// point any adapter's base URL at srv.URL
//
// Replies are taken first in, first out by whichever endpoint is called
// next; a Responder (WithResponder) decides per request instead. When the
// queue is empty the emulator answers 500 with the provider's error shape
// and a message saying the script ran out. A Reply can also script a
// failure (Error, Status, ErrorBody): the provider's real status, headers
// and error body for that kind of failure. Requests returns everything
// received, keys included, for tests to inspect.
//
// A command serving the emulator for out-of-process clients does
//
//	srv := emulator.NewUnstartedServer(emulator.WithAddr("127.0.0.1:8787"), emulator.WithReplies(replies...))
//	if err := srv.Start(); err != nil { ... }
//	defer srv.Close()
//	fmt.Println(srv.URL)
//
// where replies may come from a JSON file: Reply has JSON tags.
//
// # Routes
//
//	POST /v1/messages                                  Anthropic Messages
//	POST /v1/responses                                 OpenAI Responses
//	POST /v1/chat/completions                          OpenAI Chat Completions
//	POST /api/v1/chat/completions                      the same, at OpenRouter's path
//	POST /v1beta/models/{model}:generateContent        Gemini
//	POST /v1beta/models/{model}:streamGenerateContent  Gemini, with ?alt=sse
//	GET  /v1/models, /api/v1/models                    model list (OpenAI shape, or Anthropic's with x-api-key)
//	GET  /v1beta/models                                model list (Gemini shape)
//	POST /api/chat                                     Ollama's native chat (NDJSON stream by default)
//	POST /api/show                                     Ollama's model details and capabilities
//	GET  /api/tags, /api/ps                            Ollama's installed and loaded models
//	GET  /api/version                                  Ollama's version
//	GET  /health                                       {"status":"ok"}, with the header Metis-Emulator: 1
//
// Adapters take the server root as their base URL (Anthropic, Gemini) or
// the root plus /v1 (OpenAI and OpenAI-compatible servers).
//
// A provider's own wire format, registered with Register (a Wire), is
// served at the paths it names, with the same key check, known models,
// scripted replies and failures, Responders, ids and chunking; package
// examples/toyprovider/toyemu is one.
//
// # Wire fidelity and profiles
//
// Every body mirrors recordings of the real APIs, quirks included, and a
// Profile says which server's quirks: the reference profiles "anthropic",
// "openai", "gemini", "gemini-3" and "ollama-native" (Ollama's /api/chat)
// are the providers' own services, and
// "vllm", "ollama", "lmstudio", "llamacpp", "openrouter" and "deepseek"
// are OpenAI-compatible servers (ProfileForServer maps an openaicompat
// kind to its profile). A reply is rendered with the profile it names
// (Reply.Profile), else the server's (WithProfile), else its API's
// reference (ReferenceProfile). The reference profiles give:
//
//   - Anthropic: message_start carries a provisional usage that
//     message_delta supersedes; a ping follows the first
//     content_block_start; data lines are padded with spaces inside the
//     JSON, before its closing brace; input_json_delta starts with an empty
//     fragment, then spaced JSON in uneven, token-like pieces; a thinking
//     block ends with an empty thinking_delta and then a signature_delta;
//     stop_details is null, or the refusal's details. Requests without an
//     anthropic-version header get the API's 400; the key may come as
//     x-api-key or Authorization: Bearer.
//   - OpenAI Chat Completions: the first chunk carries the role (content ""
//     before text, null before tool calls), sharing its chunk with the
//     first tool call's id, type and name in a tool-only turn; later
//     fragments carry only the index and compact arguments in token-like
//     pieces; finish_reason comes in a chunk of its own; with
//     stream_options.include_usage every chunk has "usage":null and a last
//     chunk has "choices":[] and the usage; every chunk has an
//     "obfuscation" field; the stream ends with data: [DONE]; responses
//     carry x-request-id.
//   - OpenAI Responses: response.created, response.in_progress, one
//     output_item.added/done pair per item (reasoning, message,
//     function_call) with content_part, output_text, reasoning_summary_part,
//     reasoning_summary_text and function_call_arguments events between, and
//     response.completed (or response.incomplete) with usage; every event
//     has a sequence_number, delta events an obfuscation field.
//   - Gemini: with alt=sse each event is a whole GenerateContentResponse
//     ended by CRLF CRLF, written with a space after each colon as Google
//     writes it; without alt=sse the same responses come as one JSON array;
//     usageMetadata is cumulative; a functionCall carries an id only when
//     the script gives one; a thoughtSignature rides on the first function
//     call (or the first answer text part); a function-call turn ends with
//     an empty text part carrying finishReason, and so does every Gemini 3
//     turn.
//
// The server profiles change finish reasons (vLLM's forced tool calls and
// Ollama before 0.6 finish with "stop"), where usage goes (a chunk of its
// own, the finish chunk, or a repeated finish chunk) and whether it comes
// without include_usage, the role on every chunk, whole tool calls,
// Python-spaced arguments, SSE comments, and the non-standard fields
// (stop_reason, native_finish_reason, timings); each documents its
// evidence. The calibration test compares every streamed recording in
// testdata/recordings with the emulator's rendering of the same content.
//
// Reasoning appears only where the request asked for it, as with the real
// APIs: Anthropic needs "thinking" enabled, OpenAI Responses needs
// reasoning.summary (and include ["reasoning.encrypted_content"] for the
// encrypted_content), Gemini needs thinkingConfig.includeThoughts (its
// thoughtSignature is sent regardless), and Chat Completions never shows it
// unless WithChatReasoningField names a field, as local servers do.
//
// # Determinism
//
// Output depends only on the options, the script and the order of
// requests: ids come from one counter (msg_emu_0001, toolu_emu_0002, ...),
// timestamps are fixed (WithCreated), text and tool arguments are cut into
// deltas every WithChunkSize bytes on rune boundaries, and padding and
// signatures are functions of the counter. Cassettes recorded against the
// emulator are therefore byte-stable.
//
// # Keys
//
// Every model endpoint requires its provider's key header (x-api-key,
// Authorization: Bearer, x-goog-api-key or ?key=) and answers a missing or
// wrong key with the provider's real error: Anthropic and OpenAI 401,
// Gemini 403 PERMISSION_DENIED for a missing key and 400 API_KEY_INVALID for
// a wrong one. Keys are recorded in Requests so tests can check they flow
// through, and are never logged or echoed.
package emulator
