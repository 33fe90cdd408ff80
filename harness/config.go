package harness

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

// Config configures Run and RunScenario. The zero value (with Factories
// set) replays scenarios/ against cassettes/ and compares goldens/ from the
// current directory. Every hook is a function field, so that recording,
// fault injection and third-party adapters plug in without the harness
// knowing about them.
type Config struct {
	// ScenarioDir is where Run loads scenarios from; default "scenarios".
	// Scenarios, when set, is used instead.
	ScenarioDir string
	Scenarios   []*scenario.Scenario
	// CassetteDir holds cassettes/<provider>/<scenario-id>.yaml for the
	// default Transport; default "cassettes".
	CassetteDir string
	// GoldenDir holds goldens/<scenario-id>/<provider>/<model-name>/;
	// default "goldens". NoGoldens skips golden comparison altogether (a
	// third party certifying its adapter has none).
	GoldenDir string
	NoGoldens bool
	// UpdateGoldens rewrites the golden files that differ (the CLI's
	// --update); it is what the default Golden hook passes to
	// CompareGolden.
	UpdateGoldens bool

	// Models keeps only matrix entries whose model is listed, by
	// canonical id or by provider ("anthropic"). Tags keeps scenarios with
	// at least one of the tags. IDs keeps scenarios whose id matches one of
	// the path.Match globs ("tools/*"). Skip drops scenarios whose id
	// matches one of its globs or that have one of its tags. Empty filters
	// keep everything.
	Models []string
	Tags   []string
	IDs    []string
	Skip   []string
	// Shard and Shards split the selected runs: with Shards > 1, Run does
	// only the runs whose position in the sorted selection is Shard modulo
	// Shards (Shard counts from 0).
	Shard, Shards int
	// Parallel is how many runs go at once; 0 or 1 runs them in order.
	Parallel int
	// FailFast stops the suite at its first failed run, like go test
	// -failfast: Run starts no more runs, cancels those in flight and
	// returns only the runs that ended before the stop (the failed one
	// among them), with Result.NotRun counting the others.
	FailFast bool

	// Columns are the matrix's columns, for scenarios that name no
	// models; nil means DefaultColumns() (scenarios/columns.yaml).
	Columns []scenario.Column

	// Registry resolves models to adapters; nil means
	// adapters.DefaultRegistry().
	Registry *adapters.Registry
	// Factories builds adapters by registry type ("anthropic", "openai",
	// "gemini", "openaicompat"). Required.
	Factories map[string]adapters.Factory
	// Getenv resolves the registry's api_key_env variables; nil gives
	// every variable the fake key "sk-test-FAKE", which is all replay
	// needs.
	Getenv func(string) string
	// Logger receives the adapters' and sessions' log entries; nil
	// discards them.
	Logger *slog.Logger

	// Transport returns the HTTP transport under a run's adapter for
	// provider (the registry adapter name, which is the model id's
	// prefix). It is called lazily, at the first request to that
	// provider, so a run that never reaches the wire needs no cassette.
	// Nil means replay.Load of CassettePath(CassetteDir, sc, model,
	// provider) with Pacing; the record tool plugs recording in here.
	//
	// After the run, a transport with an Unused() []*cassette.Interaction
	// method has its unserved interactions reported as warnings, one
	// with a Differences() []replay.Difference method (a semantic
	// replay.Player) has each differing field reported as a failing
	// replay/request finding, and one with a Finish(passed bool) error
	// method is told how the run ended (a recorder saves its cassette
	// then). Each request reaches the transport with a replay.Call in its
	// context.
	Transport func(provider string, sc *scenario.Scenario, model string) (http.RoundTripper, error)
	// Pacing delays each replayed server-sent event (default Transport).
	Pacing time.Duration
	// SkipMissingCassettes turns a run whose cassette does not exist into
	// a skip instead of a failure (go test does this until `record` has
	// run).
	SkipMissingCassettes bool

	// Faults builds the transport for an inject step: it wraps next (the
	// provider's transport) to apply spec, the step's mapping as written,
	// to every HTTP attempt of the next call step. Nil makes inject steps
	// fail with "fault injection not available".
	Faults func(spec map[string]any, next http.RoundTripper) (http.RoundTripper, error)

	// BeforeCall, when set, is called before each model call goes out
	// (twice for a call with both: true, Stream telling which). The record
	// tool scripts the emulator's reply from CallInfo.Step.Call.Reply
	// here. An error fails the step.
	BeforeCall func(ctx context.Context, c CallInfo) error

	// Golden compares got with the golden file at path and returns a
	// (-want +got) diff, "" when they match. Nil means
	// CompareGolden(path, got, UpdateGoldens); go test plugs goldie in.
	// Under Oracle OracleContract it is called for transcript.json alone,
	// with got projected by ContractTranscript: the hook must project the
	// golden file the same way (nil reads it and does).
	Golden func(path string, got []byte) (diff string, err error)

	// Progress, when set, is told after each run of Run ends: how many
	// runs are done, of how many, and the run's result. Calls do not
	// overlap, whatever Parallel; the CLI draws its progress line here.
	Progress func(done, total int, r *ScenarioResult)

	// RunTimeout bounds one scenario run in wall time, so that a broken
	// transport cannot hang the suite; default DefaultRunTimeout. A
	// scenario's own run_timeout wins over it.
	RunTimeout time.Duration

	// Oracle chooses the checks a run evaluates: OracleAll (or "") the
	// contract's and metis's regression, OracleContract the contract's
	// alone — certification's choice — and OracleRegression metis's own
	// choices alone. Under OracleContract, regression checks are left
	// out of the results, only the contract fields of transcript.json
	// are compared (ContractTranscript; requests.json and events.json
	// are not compared), and a scenario whose oracle is regression is
	// skipped. Under OracleRegression, contract checks are left out and
	// the three golden files are compared byte for byte; the run's
	// findings (stream invariants, replay) count under every oracle.
	//
	// The contract alone also judges the adapter from the outside where
	// the contract leaves it a policy of its own, as a certificate must
	// for an adapter other than metis's: its backoff schedule is its own
	// (a call's attempts are counted on the wire, and the backoff check,
	// from the gaps between them, replaces waits), a wait it sleeps on
	// its own timers is bounded by WaitBudget, cancel during_backoff
	// fires for it once a retryable failure was answered, and a swap
	// whose refusal the scenario expects but the adapter's declared
	// capabilities allow (or the reverse) skips the run with the reason.
	Oracle scenario.Oracle

	// RealTimeTimers makes the run clock's timers (the adapters' idle and
	// whole-call timeouts) also fire once their duration of real time has
	// passed, for runs whose stall faults happen where the run cannot see
	// them: in a replay server the adapter reaches over HTTP (certify
	// with a Server sets it). Without it a timer fires only when a stall
	// moves the run's virtual clock to it, so no verdict depends on how
	// fast the machine is.
	RealTimeTimers bool

	// WaitBudget bounds, under OracleContract, the real time a run waits for
	// an adapter that sleeps between attempts on its own timers rather
	// than on the run's clock: a wait longer than that is not waited
	// out, the call is cancelled and the run skipped saying so. Default
	// DefaultWaitBudget.
	WaitBudget time.Duration
}

// DefaultWaitBudget is Config.WaitBudget's default: the longest wait an
// adapter sleeping on its own timers is given before a run stops
// waiting for its next attempt.
const DefaultWaitBudget = 5 * time.Second

// waitBudget returns WaitBudget or its default.
func (c *Config) waitBudget() time.Duration {
	if c.WaitBudget > 0 {
		return c.WaitBudget
	}
	return DefaultWaitBudget
}

// CallInfo describes a model call about to be made.
type CallInfo struct {
	Scenario *scenario.Scenario
	// Model is the run's matrix model; CallModel the model this call goes
	// to (after swaps and per-call overrides) and Provider its provider.
	Model     string
	CallModel string
	Provider  string
	Step      *scenario.Step
	// Stream says whether this request streams.
	Stream bool
}

func (c *Config) cassetteDir() string { return or(c.CassetteDir, "cassettes") }
func (c *Config) goldenDir() string   { return or(c.GoldenDir, "goldens") }
func (c *Config) scenarioDir() string { return or(c.ScenarioDir, "scenarios") }

// DefaultRunTimeout bounds a scenario run when neither the scenario
// (run_timeout) nor Config.RunTimeout says otherwise.
const DefaultRunTimeout = 2 * time.Minute

// runTimeout is the wall-time bound of a run of sc: the scenario's
// run_timeout, else Config.RunTimeout, else DefaultRunTimeout.
func (c *Config) runTimeout(sc *scenario.Scenario) time.Duration {
	switch {
	case sc != nil && sc.RunTimeout > 0:
		return sc.RunTimeout
	case c.RunTimeout > 0:
		return c.RunTimeout
	}
	return DefaultRunTimeout
}

func (c *Config) getenv(name string) string {
	if c.Getenv != nil {
		return c.Getenv(name)
	}
	return FakeKey
}

// FakeKey is the API key replay runs use.
const FakeKey = "sk-test-FAKE"

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
