// Package harness runs conformance scenarios: it takes the scenarios
// package scenario loads, plans their runs (one per model of each
// scenario's matrix), plays each run's steps through a session.Session
// and the adapters against recorded HTTP cassettes (package replay), and
// checks every model call three ways — the stream invariants of seed 000
// §5.2/§5.3 (package streamcheck), the step's expectations, and golden
// files (the canonical transcript, the wire requests and an event trace)
// — into a Result that package report writes out. The same engine runs
// under go test (suite_test.go, ginkgo) and behind `conform run`, and
// third parties import it to certify their own adapters.
//
// # Scenario files
//
// A scenario is one YAML file under scenarios/ (package scenario is its
// format: the keys, the steps, the loader, the schema and the linter).
// Run takes the loaded scenarios and plans their runs, one per model of
// each scenario's matrix (below).
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
// The step kinds (user, call, tool_result, swap, cancel, inject, history,
// reload, ready) are described in package scenario. The runner plays them
// in order on one session per run; a call step's expect: is checked as
// below.
//
// # Expectations, oracles and goldens
//
// A call step's expect: is checked by package check, which documents every
// expectation key, the oracle of each check (contract or regression:
// OracleOf, Config.Oracle) and the golden files. A failing step stops
// its run; its checks, and every stream invariant violation as a
// Finding, are in the ScenarioResult.
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
