// Package conformtest certifies an adapter from its author's own go test,
// in the spirit of testing/fstest.TestFS and x/net/nettest.TestConn:
//
//	func TestConformance(t *testing.T) {
//		conformtest.Run(t, "anthropic", myadapter.New)
//	}
//
// Run replays metis's conformance suite — the same scenarios, cassettes,
// checks and goldens as `conform run`, embedded in this module, so no
// checkout is needed — through the adapter under test in place of metis's
// built-in adapter for that provider. Every scenario run that talks to the
// provider is a subtest named "<scenario-id>/<model>", so go test -run
// selects them:
//
//	go test -run 'TestConformance/tools/' ./...
//
// Each run checks the stream invariants of seed 000 §5.2/§5.3, the
// scenario's expectations (stop reasons, content blocks, error classes,
// attempts, event counts) and the golden canonical output (transcript,
// wire requests, event trace). Faults are injected as `conform run` does.
// A run whose scenario requires a capability the adapter does not
// declare is skipped with the reason; one whose capability is declared
// but broken fails. Run returns the certification report, and Bundle
// writes it as a verifiable results bundle.
//
// The adapter is built with the run's adapters.Config: Config.Name is the
// provider, the registry's models and options are filled in, and the HTTP
// client is injected (Config.HTTPClient): the adapter must use it, unless
// OverHTTP is given, in which case it gets a loopback BaseURL instead and
// uses its own client. Its Name() must return Config.Name.
package conformtest

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
)

// BundleEnv names an environment variable that, when set, makes Run write
// its results bundle there (a directory, or a file ending in .tar.gz), as
// the Bundle option does.
const BundleEnv = "METIS_CERTIFY_BUNDLE"

// An Option configures Run.
type Option func(*options)

type options struct {
	suite    *certify.Suite
	registry *adapters.Registry
	profiles []string
	ids      []string
	skip     []string
	wires    []string
	budget   time.Duration
	overHTTP bool
	bundle   string
	name     string
	version  string
	pacing   time.Duration
	logger   *slog.Logger
}

// Suite certifies against suite instead of the built-in one.
func Suite(suite certify.Suite) Option { return func(o *options) { o.suite = &suite } }

// Registry resolves models with reg instead of metis's default registry
// (for a provider of the adapter's own, with its own suite).
func Registry(reg *adapters.Registry) Option { return func(o *options) { o.registry = reg } }

// Profiles keeps only the runs of these profiles (certify.Profiles) and
// requires each of them to be certified.
func Profiles(names ...string) Option { return func(o *options) { o.profiles = names } }

// Scenarios keeps only the scenarios whose id matches one of the globs
// ("tools/*"), as `conform run` arguments do.
func Scenarios(globs ...string) Option { return func(o *options) { o.ids = globs } }

// Skip leaves out the scenarios whose id matches one of these globs
// ("thinking/*") or that carry one of these tags ("thinking"): what the
// adapter does not claim, as conform certify's --skip does. They are
// not in the report.
func Skip(globsOrTags ...string) Option {
	return func(o *options) { o.skip = append(o.skip, globsOrTags...) }
}

// Wires keeps only the runs whose model speaks one of these wire formats
// ("chat", "responses", "anthropic", "gemini", ...) or goes by one of
// these column names ("openai-chat"), as conform certify's --wire does:
// a Chat-only library certified as "openai" declines the Responses
// column with Wires("chat").
func Wires(wiresOrColumns ...string) Option {
	return func(o *options) { o.wires = append(o.wires, wiresOrColumns...) }
}

// WaitBudget bounds the real time a run waits for an adapter that sleeps
// its backoff on its own timers instead of adapters.Config.Clock
// (default harness.DefaultWaitBudget): a longer wait is not waited out,
// and its run is skipped saying so.
func WaitBudget(d time.Duration) Option { return func(o *options) { o.budget = d } }

// OverHTTP makes the adapter reach the cassettes through the replay
// server on loopback, with its own HTTP client, instead of through the
// injected one.
func OverHTTP() Option { return func(o *options) { o.overHTTP = true } }

// Bundle writes the results bundle to path once every run is done: a
// directory, or a .tar.gz file. `conform verify` checks it.
func Bundle(path string) Option { return func(o *options) { o.bundle = path } }

// Adapter names the adapter and its version in the report; the default
// name is the provider's.
func Adapter(name, version string) Option {
	return func(o *options) { o.name, o.version = name, version }
}

// Pacing delays each replayed server-sent event by d.
func Pacing(d time.Duration) Option { return func(o *options) { o.pacing = d } }

// Logger receives the adapters' and sessions' log entries.
func Logger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Run certifies the adapter newAdapter builds as provider's ("anthropic",
// "openai", "gemini", "vllm", ... — a registry adapter name whose wire
// format it speaks). It runs one subtest per scenario × model and returns
// the report; a configuration problem (an unknown provider, no run
// applying) fails t at once.
func Run[A adapters.Adapter](t *testing.T, provider string, newAdapter func(adapters.Config) (A, error), opts ...Option) *certify.Report {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.bundle == "" {
		o.bundle = os.Getenv(BundleEnv)
	}
	target := certify.Target{
		Provider: provider, Name: o.name, Version: o.version, Kind: "go",
		New: func(c adapters.Config) (adapters.Adapter, error) {
			a, err := newAdapter(c)
			if err != nil {
				return nil, err
			}
			return a, nil
		},
	}
	copts := certify.Options{Suite: o.suite, Registry: o.registry, Profiles: o.profiles, IDs: o.ids, Skip: o.skip,
		Wires: o.wires, WaitBudget: o.budget, Pacing: o.pacing, Logger: o.logger}
	if o.overHTTP {
		srv, err := replay.NewServer()
		if err != nil {
			t.Fatalf("conformtest: %v", err)
		}
		t.Cleanup(func() { srv.Close() })
		copts.Server = srv
	}
	plan, err := certify.NewPlan(target, copts)
	if err != nil {
		t.Fatalf("conformtest: %v", err)
	}
	if len(plan.Runs) == 0 {
		t.Fatalf("conformtest: no scenario run of the suite talks to %s in profiles %s", provider, strings.Join(plan.Profiles, ", "))
	}
	caps, err := plan.Capabilities()
	if err != nil {
		t.Fatalf("conformtest: %v", err)
	}
	started := time.Now()
	results := make([]harness.ScenarioResult, len(plan.Runs))
	for i, run := range plan.Runs {
		t.Run(run.Name(), func(t *testing.T) {
			res := plan.Exec(t.Context(), run)
			results[i] = res
			t.Log(Line(run, res))
			switch res.Status {
			case harness.StatusSkip:
				t.Skip(res.Reason)
			case harness.StatusFail:
				t.Error(Describe(run, res))
			}
		})
	}
	report := plan.NewReport(results, caps, started, o.profiles)
	report.Reproduce = "go test -run '^" + t.Name() + "$' ."
	t.Log(report.Verdict())
	if o.bundle != "" {
		digest, err := certify.WriteBundle(o.bundle, report)
		if err != nil {
			t.Errorf("conformtest: writing the bundle: %v", err)
		} else {
			t.Logf("conformtest: bundle %s (%s)", o.bundle, digest)
		}
	}
	return report
}

// Line is a run's one-line outcome, as conform run and conform certify
// print it: "ok <id> [<model>] (profile <p>)", with a skip's reason, or a failure's
// first failing check ("ok", "skip" and "FAIL" as conform run marks
// them). Run logs it for every run (go test -v shows it).
func Line(run certify.Run, res harness.ScenarioResult) string {
	mark := map[harness.Status]string{harness.StatusPass: "ok", harness.StatusFail: "FAIL", harness.StatusSkip: "skip"}[res.Status]
	line := fmt.Sprintf("%-4s %s (profile %s)", mark, res.Name(), run.Profile)
	switch res.Status {
	case harness.StatusSkip:
		line += ": " + firstLine(res.Reason)
	case harness.StatusFail:
		if f := certify.FirstFailure(res); f != nil {
			line += ": " + f.Check + ": " + firstLine(f.Message)
		} else {
			line += ": " + firstLine(res.Reason)
		}
	}
	return line
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Describe renders a failed run for a test log: the first failing check,
// then every step failure and finding, with diffs.
func Describe(run certify.Run, res harness.ScenarioResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s [%s] (profile %s, %s) failed", res.ID, res.Model, run.Profile, res.File)
	if f := certify.FirstFailure(res); f != nil {
		if f.Step > 0 {
			fmt.Fprintf(&sb, " at step %d, check %s: %s", f.Step, f.Check, f.Message)
		} else {
			fmt.Fprintf(&sb, ", check %s: %s", f.Check, f.Message)
		}
	}
	for _, st := range res.Steps {
		for _, c := range st.Checks {
			if !c.OK {
				fmt.Fprintf(&sb, "\n  step %d (%s) FAILED %s: %s", st.Index+1, st.Kind, c.Name, c.Message)
			}
		}
		if st.Error != "" {
			fmt.Fprintf(&sb, "\n  step %d (%s) error: %s", st.Index+1, st.Kind, st.Error)
		}
	}
	for _, f := range res.Findings {
		fmt.Fprintf(&sb, "\n  %s", f)
	}
	return sb.String()
}
