// Package check checks what a scenario run produced: every expectation
// kind a step's expect: may hold (Call, Observed, Lifecycle, Log, ...),
// each check tagged with its oracle — the contract any adapter must meet,
// or metis's own regression (OracleOf) — and the golden files
// (CompareGolden, ContractTranscript, the normalizer that makes them
// byte-stable). It sees a run only through what the runner hands it (an
// Outcome, a StepData, Exchanges), so it imports the scenario format and
// nothing of running; package harness, the runner, calls it.
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
// swaps by the capabilities it declares (harness.Config.Oracle).
// OracleRegression evaluates metis's own choices alone: contract checks
// are left out, the goldens compared byte for byte. docs/oracles.md has
// the table with the reasons.
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
package check
