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
//	models: [anthropic:claude-sonnet-4-6, openai:gpt-5]   # the matrix (required)
//	system: You are terse.              # the session's system prompt
//	max_retries: 2                      # overrides the registry's
//	tools:                              # canonical.ToolDefinition, as YAML
//	  - {name: read_file, description: ..., input_schema: {type: object, ...}, side_effects: read}
//	steps: [...]                        # required
//
// requires takes canonical.Capabilities' boolean fields without the
// "supports_" prefix: images, thinking, tools, system_prompt,
// structured_output, streaming, streaming_tool_calls, parallel_tool_calls,
// prompt_caching, system_messages_in_list. A matrix model whose adapter
// does not declare one of them is skipped, with the reason.
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
//	- swap: openai:gpt-5                   # or {model: ..., expect_refusal: true}
//	- cancel: {after_events: 3}            # arms the next call: cancel it after its 3rd
//	- cancel: {after: tool.use_input_delta}  # event, after its first event of a type,
//	- cancel: {before_first_byte: true}    # or before its response arrives
//	- inject: {status: 429, headers: {retry-after: "2"}, times: 1}
//	- history: [{role: tool, content: [{type: tool_result, tool_use_id: tu_..., content: [...]}]}]
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
// cassette: {text, thinking, tool_calls: [{id, name, input}], stop_reason,
// usage: {input_tokens, output_tokens, ...}}. It plays no part in replay.
// A call that never reaches the provider (every attempt faulted, refused
// before the wire) has no reply.
//
// # Expectations
//
//	expect:
//	  stop_reason: tool_use
//	  blocks: [text, {tool_use: {name: read_file, input: {path: README.md}}}]  # exactly, in order
//	  error: {class: rate_limit, code: overloaded}  # the call must fail so; without
//	                                                # error, the call must succeed
//	  attempts: 3                      # HTTP attempts of the session call
//	  events: {tool.use_end: 1}        # stream event counts (streaming calls)
//	  text_contains: Hello             # or a list
//	  text_matches: "(?i)hello"        # a Go regular expression
//	  text: "Hello there!"             # the response text, exactly
//	  usage: {input_tokens: 12, output_tokens: 4}   # only the fields given
//	  refused: true                    # swap steps: the swap must be refused
//
// A failing step stops its run; its checks, and every stream invariant
// violation as a Finding, are in the ScenarioResult.
//
// # Runs
//
// Each scenario × model runs through a fresh session.Session whose ids are
// deterministic (session_1, msg_1…, req_1…) and whose clock starts at
// 2026-01-01T00:00:00Z and ticks a second per message. Adapters come from
// Config.Registry and Config.Factories; their HTTP client goes through the
// run's transport for their provider, their retry Clock is fake (backoff
// never waits; ScenarioResult.Sleeps records what was asked), and
// OnAttempt counts attempts.
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
// # Certifying a third-party adapter
//
// In process: build a Config whose Registry names your adapter type,
// whose Factories build it (it takes the injected Config.HTTPClient), and
// whose CassetteDir holds your cassettes; set NoGoldens unless you keep
// goldens; call Run and WriteReports. The Result, JUnit XML, report.json
// (format ReportFormatVersion, schema ReportSchemaJSON), summary.md and
// report.html are the certification record.
//
// # Reports
//
// A Result says what ran and who ran it: the start and wall duration, the
// metis build (version and VCS revision), the Selection (filters and
// shard), the registry entries used, and per run its outcome, timing,
// scenario file and line, and cassette provenance (Source). WriteReports
// writes it as JUnit, JSON, Markdown and HTML; ReadReport reads report.json
// back, and MergeReports joins the reports of a run's shards into the
// Result of the unsharded run.
package harness
