// Package harness is metis's replay-and-conformance harness: it loads YAML
// scenario scripts, runs each through a session.Session on every model of
// its matrix against recorded HTTP cassettes, and checks every model call
// three ways — the stream invariants of seed 000 §5.2/§5.3 (package
// streamcheck), the step's expectations, and golden files (the canonical
// transcript, the wire requests and an event trace). The same engine runs
// under go test (suite_test.go, ginkgo) and behind `conform run`, and third
// parties import it to certify their own adapters.
//
// # Scenario files
//
// A scenario is one YAML file under scenarios/, named after its id
// (scenarios/tools/single-round-trip.yaml has id tools/single-round-trip).
// scenarios/schema.json (SchemaJSON) is its JSON Schema; every file is
// validated against it, then linted (Lint). Every error names
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
//	adapter_options: {idle_timeout_seconds: 0.3}  # over the registry's options, every adapter
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
// # The matrix
//
// A scenario without models runs on every column of the matrix
// (Config.Columns; by default scenarios/columns.yaml) whose model declares
// every capability of requires and none of lacks; columns: narrows that
// to the columns it names or tags ("compat", "local", "openai-chat"). The
// columns are one per adapter and wire dialect: anthropic,
// openai-responses, openai-chat, gemini, vllm, ollama, ollama-native,
// lmstudio, llamacpp, openrouter, deepseek and the cloud platforms' columns,
// each with a wire (anthropic, responses, chat, gemini, ollama, converse)
// and tags (hosted, local, native, compat, chat, openai, local-native,
// cloud). Select and Expand
// fill such a scenario's Models from the columns, using the capabilities
// the registry's adapters declare (no network); a test fails when an
// adapter or dialect of the registry has no column.
//
// same_as names a model of the matrix: every other run is repeated on it
// (without goldens) and the two final transcripts must be equal once
// message and tool ids are renumbered and what may differ between
// providers is removed — metadata model, provider, usage, provider_raw,
// the routing's chosen model, thinking blocks (000 §10.2.1).
//
// known_failures marks runs that fail because of a known adapter bug: a
// marked run that fails gets StatusKnownFailure (listed by conform run,
// not failing it, the symptom and the actual failure in its reason); a
// marked run that passes fails, so the mark goes with the fix. models
// names matrix models, column names or providers (none: every run).
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
//
// # Expectations
//
//	expect:
//	  stop_reason: tool_use            # [contract]
//	  blocks: [text, {tool_use: {name: read_file, input: {path: README.md}}}]  # exactly, in order [contract]
//	  error: {class: rate_limit, code: overloaded, message: Overloaded}  # fail so; without
//	                                                # error, the call must succeed
//	                                                # [class, 004 §7 codes: contract;
//	                                                # other codes, message: regression]
//	  error: {class: server_error, message: Bad Gateway}  # and its text says so
//	  attempts: 3                      # HTTP attempts of the session call [contract]
//	  events: {tool.use_end: 1}        # stream event counts (streaming calls) [contract;
//	                                   # delta and usage.update counts but 0: regression]
//	  text_contains: Hello             # or a list [contract]
//	  text_matches: "(?i)hello"        # a Go regular expression [contract]
//	  text: "Hello there!"             # the response text, exactly [contract]
//	  usage: {input_tokens: 12, output_tokens: 4}   # only the fields given [contract;
//	                                   # with estimated: true, regression]
//	  refused: true                    # swap steps: the swap must be refused [contract]
//	  reasons: [images]                # ... with a reason containing each text [regression]
//	  provider_stop_reason: stop       # the provider's finish reason, verbatim [regression]
//	  served_model: gpt-5-2025-08-07   # the model the response names, verbatim [contract]
//	  status: cancelled                # the appended ASSISTANT message's status [contract]
//	  usage: {input_tokens: 8, output_tokens: 42, cached_input_tokens: 0, estimated: false}
//	  cost: {usd: "0.000654", pricing_version: "2026-05-08"}   # or cost: "0.000654" [contract]
//	  session_cost: "0.001104"         # the session's total after the call [contract]
//	  logs: [{level: WARN, message: dropped, fields: {block_type: thinking}, count: 1}]  # [regression]
//	  lifecycle: [{type: tool_input_invalid, fields: {tool_name: read_file}, count: 1}]  # [contract;
//	                                   # comparing wait or reason: regression]
//	  request:                         # one check or a list, of the step's wire requests [contract]
//	    index: -1                      # which one (default the last; negative from the end)
//	    method: POST
//	    path: /v1/chat/completions
//	    url: https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21
//	    scheme: https
//	    host: "bedrock-runtime.*.amazonaws.com"  # each * any text, in url, host, query and headers
//	    query: {api-version: "2024-10-21", alt: ""}  # "" absent
//	    json: {/messages/0/role: system, /stream_options/include_usage: true}
//	    parsed: {/messages/1/tool_calls/0/function/arguments: {path: a.md}}  # JSON in a string
//	    unordered: {/tools/0/parameters/required: [b, a]}                   # any order
//	    equal: [[/messages/1/content/0/id, /messages/2/content/0/tool_use_id]]  # same value
//	    contains: {tools: [{function: {name: read_file}}]}   # a partial object
//	    absent: [/tools]
//	    present: [/max_tokens]                              # resolves, any value but null
//	    headers: {x-title: metis}
//	    includes: [toolu_01], excludes: [signature]          # raw body texts
//	  waits: [2s, {min: 1s, max: 1.25s}]  # sleeps on the virtual clock, exactly [regression]
//	  fragments: verbatim              # streamed fragments appear as such on the wire [contract]
//	  raw: {choices: [{logprobs: {}}]} # partial object of the unstreamed body [contract;
//	                                   # no raw body at all: regression]
//	  provider_raw: {...}              # partial object of the response's provider_raw [regression]
//	  per_wire: {chat: {...}}          # refinements for calls in a wire format
//	  per_model: {vllm: {...}}         # ... or to a model, column or provider
//	  per_run: {gemini: {...}}         # ... or for runs that started on one
//
// usage compares the response's canonical.TokenUsage field by field; cost
// and session_cost are exact decimals from the session's price table.
// logs match records the adapters and the session wrote during the step
// (Config.Logger still receives them): level, a text the message
// contains, attributes compared as text; count requires exactly that many
// (0: none). lifecycle matches the lifecycle events (adapters.Event) the
// adapters and the session emitted during the step, the same way: type
// (llm.call_started, llm.call_failed, llm.retry_scheduled,
// llm.call_completed, tool_input_invalid, lossy_projection,
// routing_constraint_failure) and fields as text — adapter, model, stream,
// attempt, retry_count, status, error_class, error_code, will_retry, wait
// (a Go duration), stop_reason, input_tokens, output_tokens, tool_name,
// block_type, and reason, which the event's must contain; swap steps take
// it too, and logs (a swap step takes refused, reasons, error, lifecycle
// and logs only; lint rejects any other key there). request's url is the
// URL as sent (its path escaped), scheme and host its parts, query its
// parameters; over loopback HTTP (an adapter certified through the replay
// server at the Config.BaseURL it was given) scheme and host are the
// server's, so they are not checked and url is compared from its path on.
// request checks use JSON Pointers (RFC 6901; a negative array index counts from the end)
// into the request body; contains matches
// objects by subset and arrays element by element. waits are the sleeps
// the adapters asked the fake clock for during the step — a Retry-After
// wait is exact, backoff with jitter a range. fragments: verbatim requires
// every text, thinking and tool-input delta of the stream to appear in the
// raw response body, JSON-string encoded as the provider sent it (000
// §5.4). per_wire and per_model replace the general expectation's fields
// for calls to a wire format or model (its id, column or provider), and
// per_run for runs whose matrix model is so named, in that order.
//
// A failing step stops its run; its checks, and every stream invariant
// violation as a Finding, are in the ScenarioResult.
//
// # Oracles
//
// Each check carries its Oracle, given in brackets above: the contract
// (what seeds 000, 001, 003 and 004 require of any adapter) or metis's
// regression (its own choices: chunking, backoff, texts, estimates,
// provider_raw). Checks without an expectation key — stream_invariants,
// stream_vs_complete, reload, same_as — are contract; OracleOf gives the
// oracle of any check name. Of the goldens, transcript.json's contract
// fields (ContractTranscript) are contract; the transcript byte for
// byte, requests.json and events.json are regression. Config.Oracle
// OracleContract (certification's setting) evaluates the contract
// alone: regression checks are left out, only the projected transcript
// is compared, and a scenario with the top-level key
//
//	oracle: regression                  # it checks only metis's own choices
//
// is skipped; it also judges the adapter's backoff from the wire and its
// swaps by the capabilities it declares (Config.Oracle).
// OracleRegression evaluates metis's own choices alone: contract checks
// are left out, the goldens compared byte for byte. docs/oracles.md has
// the table with the reasons.
//
// # Runs
//
// Each scenario × model runs through a fresh session.Session whose ids are
// deterministic (session_1, msg_1…, req_1…) and whose clock starts at
// 2026-01-01T00:00:00Z and ticks a second per message. Adapters come from
// Config.Registry and Config.Factories; their HTTP client goes through the
// run's transport for their provider, their retry Clock is fake (backoff
// never waits; ScenarioResult.Sleeps records what was asked; the idle and
// whole-call timeouts are its timers, which a stall fault fires at once
// through faults.OnStall), and OnAttempt counts attempts.
//
// A scenario with compensations: (a compensations: block exactly as in
// models.yaml, checked at load by the registry's parser, so that its
// errors name the field) runs with every adapter wrapped by
// compensate.Wrap, over a registry with the models of Config.Registry,
// their tiers and aliases, in which the run's model carries that block
// and no other model carries any; the wrapper sleeps on the run's clock
// (waits) and logs to the run's logger (logs). With tier_stand_in, a
// call for a model of another adapter goes to the run's model's
// adapter, whose stand-in answers it.
//
// # Cassettes
//
// By default a provider's transport replays cassettes/<provider>/<id>.yaml
// (go-vcr v4's format) with replay.Player; see CassettePath for the
// "@<model-name>" suffix used when two runs of a matrix talk to the same
// provider. Transports are created lazily, so a run that never reaches the
// wire needs no cassette; a missing one fails the run with "no cassette
// cassettes/anthropic/x.yaml: `conform run --record=missing` records it
// against the emulator, ..." (or skips it with
// Config.SkipMissingCassettes). Config.Transport replaces replay — the
// record tool plugs go-vcr's recorder in there and scripts the emulator in
// Config.BeforeCall.
//
// # Goldens
//
// goldens/<id>/<provider>/<model-name>/ holds transcript.json (the
// session's messages), requests.json (every HTTP request sent, attempts
// included, with its canonical JSON body) and events.json (one line per
// stream event, non-streamed response, HTTP attempt and error). Canonical
// tool ids, request ids and ULIDs are renumbered in order of first
// appearance (tu_1, req_1, msg_1), latency is zeroed, and only waits the
// provider asked for (Retry-After) appear, so the files are byte-stable.
// CompareGolden compares and, with update, rewrites only files that differ;
// go test does the same through goldie (GOLDIE_UPDATE=1). Both diff with
// GoldenDiff, in the (-want +got) convention.
//
// # Traceability
//
// scenarios/spec-cases.yaml lists the test cases the specification names
// (000 §5.2, §10.1–§10.3; 001 §11.1–§11.2; 003 §10.1–§10.3; 004 fixtures
// 001–008), each with the columns it applies to, and the sections a
// spec: reference may name. Lint rejects a spec: reference that names
// neither a case nor a section. Trace maps each case to the runs of the
// scenarios naming it; `conform list --trace` prints it, and a test fails
// when a case has a column no run covers.
//
// # Certifying a third-party adapter
//
// Package conformtest runs this engine from an adapter author's own go
// test, over the embedded suite, and `conform certify` runs it for an
// adapter in any language (package execadapter); both write results
// bundles (package certify). By hand: build a Config whose Registry names
// your adapter type, whose Factories build it (it takes the injected
// Config.HTTPClient), whose CassetteDir holds your cassettes, and whose
// Faults is faults.FromSpec (without it every inject step fails); set
// NoGoldens unless you keep goldens and Oracle to OracleContract (what a
// certificate holds); call Run, then report.WriteReports.
//
// # Reports
//
// A Result says what ran and who ran it: the start and wall duration, the
// metis build (version and VCS revision), the Selection (filters and
// shard), the registry entries used, and per run its outcome, timing,
// scenario file and line, and cassette provenance (Source). Package
// harness/report writes it as JUnit, JSON, Markdown and HTML, reads
// report.json back and merges the reports of a run's shards.
package harness
