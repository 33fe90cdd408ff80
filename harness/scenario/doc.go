// Package scenario is the conformance suite's scenario format: the Go
// types of a scenario file, its YAML loader (Parse, LoadFile, LoadDir,
// LoadFS) with file:line:column errors, its JSON Schema (SchemaJSON), the
// linter (Lint, LintColumns) and the suite's data files beside the
// scenarios (columns.yaml: Column, DefaultColumns; spec-cases.yaml: Spec,
// DefaultSpec). It is what a scenario author and `conform validate` need,
// and nothing of running: the runner (package harness) imports it, never
// the reverse. The expectation keys and which oracle checks each are in
// the harness package doc.
//
// # Scenario files
//
// A scenario is one YAML file under scenarios/, named after its id
// (scenarios/tools/single-round-trip.yaml has id tools/single-round-trip).
// scenarios/schema.json (SchemaJSON) is its JSON Schema; every file is
// validated against it, then linted (Lint, in this package). Every error names
// file:line:column.
//
//	id: tools/single-round-trip         # stable; names cassettes and goldens
//	title: One tool call and its result # required
//	description: ...                    # free text
//	spec: ["000 §4.1.1"]                # seed references
//	tags: [tools, streaming]            # for filters and ginkgo labels
//	requires: [tools, streaming]        # capabilities the matrix model must declare
//	lacks: [images]                     # capabilities it must not declare (refusal scenarios)
//	columns: [compat]                   # narrow the column-derived matrix (names or tags)
//	models: [anthropic:claude-sonnet-4-6, openai:gpt-5]   # or an explicit matrix
//	same_as: anthropic:claude-sonnet-4-6  # every run's transcript must equal this model's
//	known_failures: [{models: [vllm], symptom: "ends a tool turn with stop"}]
//	invalid_tools: true                 # the tools are deliberately invalid (refusal tests)
//	oracle: regression                  # checks only metis's own choices (# Oracles)
//	system: You are terse.              # the session's system prompt
//	max_retries: 2                      # overrides the registry's
//	adapter_options: {idle_timeout_seconds: 0.3}  # over the registry's options, every adapter (null removes one)
//	call_timeout: 500ms                 # the adapters' whole-call timeout
//	credentials:                        # instead of the harness's fake key
//	  env: {AWS_SESSION_TOKEN: ""}      # the adapters' environment ("" unsets)
//	  tokens: [{token: tok-1, expires_in: 100s}, {token: tok-2}]  # a token source on the run's clock
//	run_timeout: 30s                    # wall-time bound on each run
//	compensations: {max_tools: 3, core_tools: [read_file]}  # a models.yaml compensations: block, on the run's model
//	tools:                              # canonical.ToolDefinition, as YAML
//	  - {name: read_file, description: ..., input_schema: {type: object, ...}, side_effects: read}
//	steps: [...]                        # required
//
// requires and lacks take canonical.Capabilities' boolean fields without
// the "supports_" prefix: images, thinking, tools, system_prompt,
// structured_output, streaming, streaming_tool_calls, parallel_tool_calls,
// prompt_caching, system_messages_in_list. An explicit matrix model whose
// adapter does not declare one of requires (or declares one of lacks) is
// skipped, with the reason.
//
// # Steps
//
// Each step has exactly one action key, an optional note, and (on call and
// swap steps) an optional expect:
//
//	steps:
//	- user: Say hi.                        # a USER message
//	- user: {text: What is this?, images: [{media_type: image/png, data: <base64>}]}  # or url:
//	- call: {}                             # a non-streaming call ("call:" alone too)
//	- call:
//	    stream: true                       # a streaming call
//	    both: true                         # stream through the session, then send the same
//	                                       # request unstreamed straight to the adapter:
//	                                       # content, stop reason and usage must agree
//	    model: openai:gpt-5                # this call only (routing mode override)
//	    max_output_tokens: 1024
//	    thinking: {budget_tokens: 2048}    # or {effort: low|medium|high}
//	    tool_choice: auto                  # any | none | {tool: read_file}
//	    reply: {...}                       # the emulator's answer when recording (below)
//	- tool_result: "file contents"         # answers the next unanswered tool call of the
//	                                       # last assistant message, in order
//	- tool_result: {tool: get_weather, content: "18°C", is_error: false}
//	- tool_result: {index: 1, content: "24°C"}   # the second call of the last message
//	- swap: openai:gpt-5                   # or {model: ..., expect_refusal: true}
//	- cancel: {after_events: 3}            # arms the next call: cancel it after its 3rd
//	- cancel: {after: tool.use_input_delta}  # event, after its first event of a type,
//	- cancel: {before_first_byte: true}    # or before its response arrives
//	- cancel: {during_backoff: true}       # or as its first retry wait begins
//	- inject: {status: 429, headers: {retry-after: "2"}, times: 1}
//	- history: [{role: tool, content: [{type: tool_result, tool_use_id: tu_..., content: [...]}]}]
//	- reload: true                         # persist to SQLite, reopen, continue
//	- ready: true                          # or {model: vllm:...}: the readiness probe
//
// A call also takes stop_sequences, temperature and output_schema (a JSON
// Schema for structured output), and direct: true, which sends the
// session's history as it is straight to the adapter — without the
// session's cross-provider policy (foreign thinking and signatures
// stripped, failed turns skipped, missing results synthesized) — so that
// what an adapter itself does with such content is tested; the response
// is checked but not appended to the session.
//
// reload gives the run's session a SQLite store in a temporary file from
// the start; the step closes the store, reopens the file, loads the
// session (session.Store.LoadSession) and continues with it. Its check
// (reload) requires the loaded session to equal the saved one: messages
// byte for byte, the tool-id map and the active model.
//
// ready calls the adapter's Ready (adapters.Readier, 004 §5) for its model
// (default: the active one) through the run's wire, so a pending inject
// applies to the probe's requests. Its expect takes error (without one
// the probe must succeed), request, logs and waits; an adapter without a
// probe fails the step.
//
// inject hands its mapping, as written (numbers become float64), to
// Config.Faults, which wraps the provider's transport for every HTTP
// attempt of the next call step; without Config.Faults the step fails with
// "fault injection not available". The fault layer defines the keys; the
// schema knows status, headers, times and kind, and the built-in suite
// also uses body (a string sent as is, or a mapping sent as JSON) and
// after_events (how many server-sent events pass before a stream fault)
// with kinds error_event and truncate.
//
// history appends canonical messages (seed 001 §4, in their JSON form)
// without any validation — the session is saved to an in-memory store, the
// messages appended there and the session reloaded — so that scenarios can
// check how adapters refuse invalid histories before the wire.
//
// reply scripts what the emulator answers when `record` makes the
// cassette: {text, thinking, signature, tool_calls: [{id, name, input}],
// stop_reason (canonical, or a provider's own finish reason sent
// verbatim), stop_sequence, usage: {input_tokens, output_tokens, ...}}.
// It plays no part in replay.
// A call that never reaches the provider (every attempt faulted, refused
// before the wire) has no reply.
package scenario
