package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
)

// Run records the scenario × model runs cfg selects, one at a time, and
// then replays every run it recorded through the harness's checks and
// goldens, writing progress, drift and a summary to cfg.Out. Each run
// gets one cassette per provider it talks to, written only if the run
// passes (see Recorder). The error is non-nil when the session could not
// start (bad configuration, scenarios that do not load or lint) or ctx
// ended it; failed runs are in the Summary.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	s, err := newSession(cfg)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if err := s.resolveSource(ctx); err != nil {
		return nil, err
	}
	pairs, err := s.selectRuns()
	if err != nil {
		return nil, err
	}
	if !s.cfg.DryRun {
		if err := cleanStale(s.cfg.CassetteDir, s.out); err != nil {
			return nil, err
		}
	}
	sum := &Summary{}
	defer func() { sum.Duration = time.Since(start) }()
	for i, p := range pairs {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(s.out, "interrupted: %v\n", err)
			return sum, err
		}
		res := s.runOne(ctx, p)
		sum.Runs = append(sum.Runs, res)
		s.progress(i+1, len(pairs), &res)
	}
	if err := ctx.Err(); err != nil {
		fmt.Fprintf(s.out, "interrupted: %v\n", err)
		return sum, err
	}
	for i := range sum.Runs {
		if r := &sum.Runs[i]; r.Action == ActionRecorded {
			s.replay(ctx, r)
		}
	}
	sum.Duration = time.Since(start)
	fmt.Fprintln(s.out, sum.String())
	return sum, ctx.Err()
}

// session is a Run's configuration, with defaults applied.
type session struct {
	cfg       Config
	reg       *adapters.Registry
	out       io.Writer
	transport http.RoundTripper
	owned     *http.Transport // closed at the end, when we made it
	base      *url.URL
	getenv    func(string) string
	secrets   []string
	// source is the provenance source of the cassettes the session
	// records: SourceEmulator makes every key the fake one
	// (resolveSource).
	source Source
}

func newSession(cfg Config) (*session, error) {
	if cfg.Emulator && cfg.BaseURL != "" {
		return nil, errors.New("record: choose the emulator or a base URL, not both")
	}
	s := &session{cfg: cfg, out: cfg.Out, transport: cfg.Transport, getenv: cfg.Getenv}
	c := &s.cfg
	c.ScenarioDir = or(c.ScenarioDir, "scenarios")
	c.CassetteDir = or(c.CassetteDir, "cassettes")
	c.GoldenDir = or(c.GoldenDir, "goldens")
	c.FakeKey = or(c.FakeKey, harness.FakeKey)
	if c.Factories == nil {
		c.Factories = providers.Factories()
	}
	if c.Faults == nil {
		c.Faults = faults.FromSpec
	}
	if s.out == nil {
		s.out = io.Discard
	}
	if s.getenv == nil {
		s.getenv = os.Getenv
	}
	if s.transport == nil {
		s.owned = http.DefaultTransport.(*http.Transport).Clone()
		s.transport = s.owned
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("record: base URL %q: want an http(s) URL such as http://127.0.0.1:8787", c.BaseURL)
		}
		s.base = u
	}
	s.reg = c.Registry
	if s.reg == nil {
		reg, err := adapters.DefaultRegistry()
		if err != nil {
			return nil, fmt.Errorf("record: default registry: %w", err)
		}
		s.reg = reg
	}
	return s, nil
}

func (s *session) close() {
	if s.owned != nil {
		s.owned.CloseIdleConnections()
	}
}

// selectRuns loads and lints the scenarios and applies the filters.
func (s *session) selectRuns() ([]harness.Pair, error) {
	scs := s.cfg.Scenarios
	if scs == nil {
		var err error
		if scs, err = scenario.LoadDir(s.cfg.ScenarioDir); err != nil {
			return nil, err
		}
	}
	if errs := scenario.Lint(scs, s.reg); errs != nil {
		return nil, errs
	}
	s.cfg.Scenarios = scs
	pairs := harness.Select(scs, harness.Config{IDs: s.cfg.IDs, Models: s.cfg.Models, Registry: s.reg, Factories: s.cfg.Factories})
	if len(pairs) == 0 {
		return nil, fmt.Errorf("record: no scenario run matches (scenarios %q, models %q)", strings.Join(s.cfg.IDs, ","), strings.Join(s.cfg.Models, ","))
	}
	return pairs, nil
}

// plan is what a run will write: the cassette of each provider it may
// talk to, and which of them exist.
type plan struct {
	providers []string
	paths     map[string]string
	existing  map[string]bool
	overwrite bool
}

func (s *session) plan(p harness.Pair) *plan {
	pl := &plan{paths: map[string]string{}, existing: map[string]bool{}}
	for _, prov := range p.Scenario.Providers(p.Model) {
		path := scenario.CassettePath(s.cfg.CassetteDir, p.Scenario, p.Model, prov)
		pl.providers = append(pl.providers, prov)
		pl.paths[prov] = path
		if _, err := os.Stat(path); err == nil {
			pl.existing[prov] = true
		}
	}
	return pl
}

// targets are the cassettes a run records, in provider order.
func (pl *plan) targets() []string {
	var out []string
	for _, prov := range pl.providers {
		if pl.overwrite || !pl.existing[prov] {
			out = append(out, pl.paths[prov])
		}
	}
	return out
}

// runOne decides whether to record a run, and records it.
func (s *session) runOne(ctx context.Context, p harness.Pair) (res RunResult) {
	start := time.Now()
	res = RunResult{Scenario: p.Scenario.ID, Model: p.Model}
	defer func() { res.Duration = time.Since(start) }()
	pl := s.plan(p)
	if why := s.notRecordable(p, pl); why != "" {
		res.Action, res.Reason = ActionSkipped, why
		return res
	}
	switch {
	case s.cfg.OnlyFailing:
		check := harness.RunScenario(ctx, s.replayConfig(true), p.Scenario, p.Model)
		if check.Status != harness.StatusFail {
			res.Action, res.Reason = ActionSkipped, "replays green"
			return res
		}
		pl.overwrite = true
		res.Reason = "fails replay: " + firstLine(check.Reason)
	case s.cfg.Force:
		pl.overwrite = true
	}
	targets := pl.targets()
	if len(targets) == 0 {
		res.Action, res.Reason = ActionSkipped, "cassettes exist (--force to overwrite)"
		return res
	}
	if s.cfg.DryRun {
		res.Action, res.Cassettes = ActionPlanned, targets
		return res
	}
	if s.source != SourceEmulator {
		for _, prov := range pl.providers {
			if _, err := s.reg.Config(prov, s.getenv); err != nil {
				res.Action, res.Reason = ActionFailed, err.Error()
				return res
			}
		}
	}
	s.record(ctx, p, pl, &res)
	return res
}

// record runs p through the harness with a Recorder for each provider
// whose cassette is to be written (and a replay of the others).
func (s *session) record(ctx context.Context, p harness.Pair, pl *plan, res *RunResult) {
	real, source, end := s.transport, s.source, ""
	hcfg := harness.Config{
		Registry: s.reg, Factories: s.cfg.Factories, Getenv: s.getenv,
		NoGoldens: true, Faults: s.cfg.Faults,
	}
	switch {
	case s.cfg.Emulator:
		sc := newScript(s.reg, s.getenv)
		auth := emulator.WithAPIKey(s.cfg.FakeKey)
		if p.Scenario.Credentials != nil {
			// The scenario brings its own credentials (tokens that change
			// over the run), which its request expectations check; the
			// emulator, which knows only the fake key, takes any.
			auth = emulator.WithoutAuth()
		}
		srv := emulator.NewUnstartedServer(emulator.WithResponder(sc.respond), auth)
		if err := srv.Start(); err != nil {
			res.Action, res.Reason = ActionFailed, err.Error()
			return
		}
		defer srv.Close()
		u, err := url.Parse(srv.URL)
		if err != nil {
			res.Action, res.Reason = ActionFailed, err.Error()
			return
		}
		real = redirect{base: u, next: s.transport}
		hcfg.BeforeCall = sc.beforeCall
	case s.base != nil:
		real, end = redirect{base: s.base, next: s.transport}, endpoint(s.base)
	}

	var mu sync.Mutex
	var recs []*Recorder
	hcfg.Transport = func(provider string, sc *scenario.Scenario, model string) (http.RoundTripper, error) {
		path := scenario.CassettePath(s.cfg.CassetteDir, sc, model, provider)
		transport := real
		if s.source == SourceEmulator {
			if c, err := s.reg.Config(provider, s.getenv); err == nil && c.APIKey == "" {
				transport = keyless{key: s.cfg.FakeKey, next: real}
			}
		}
		if model != p.Model {
			// The same_as reference run of another column: its cassettes
			// belong to that column's own run, so they are replayed when
			// they exist and never written from here (concurrent runs of
			// every column would otherwise overwrite them).
			if _, err := os.Stat(path); err == nil {
				return replay.Load(path)
			}
			return transport, nil
		}
		if pl.existing[provider] && !pl.overwrite {
			return replay.Load(path)
		}
		rec, err := NewRecorder(path, Options{
			Scenario: sc.ID, Provider: provider, Model: model, Source: source, Endpoint: end,
			Transport: transport, Secrets: s.secrets, Context: ctx, Now: s.cfg.Now,
		})
		if err != nil {
			return nil, err
		}
		mu.Lock()
		recs = append(recs, rec)
		mu.Unlock()
		return staging{rec}, nil
	}

	hres := harness.RunScenario(ctx, hcfg, p.Scenario, p.Model)
	mu.Lock()
	defer mu.Unlock()
	// A known failure is the adapter's bug the scenario names, not the
	// traffic's: its cassettes are recorded like a pass's, so the run
	// replays once the adapter is fixed and the mark goes.
	keep := func() bool { return hres.Status == harness.StatusPass || hres.Status == harness.StatusKnownFailure }
	if keep() {
		if err := stageAll(recs); err != nil {
			hres.Status, hres.Reason = harness.StatusFail, err.Error()
		}
	}
	for _, rec := range recs {
		rec.Discard() // drops whatever was staged when the run failed
		if !keep() {
			continue
		}
		if rec.Written() {
			res.Cassettes = append(res.Cassettes, rec.Path())
		}
		if rec.Unchanged() {
			res.Unchanged = append(res.Unchanged, rec.Path())
		}
	}
	res.settle(hres)
}

// settle sets the run's action and reason from the recording's result:
// recorded (no traffic when no cassette came of it), skipped, or failed
// with the run's reason and every error finding it does not already
// say.
func (res *RunResult) settle(hres harness.ScenarioResult) {
	switch hres.Status {
	case harness.StatusPass, harness.StatusKnownFailure:
		res.Action = ActionRecorded
		if len(res.Cassettes) == 0 {
			res.Action = ActionNoTraffic
		}
		if hres.Status == harness.StatusKnownFailure {
			res.Reason = hres.Reason // "known failure (symptom); got: …"
		}
	case harness.StatusSkip:
		res.Action, res.Reason = ActionSkipped, hres.Reason
	default:
		res.Action, res.Reason = ActionFailed, hres.Reason
		for _, f := range hres.Findings {
			if f.Level == harness.LevelError && !strings.Contains(res.Reason, f.Message) {
				res.Reason += "\n" + f.String()
			}
		}
	}
}

// staging hides the Recorder's Finish from the harness, which would save
// each provider's cassette on its own: record stages them all and commits
// them together.
type staging struct{ rec *Recorder }

func (s staging) RoundTrip(req *http.Request) (*http.Response, error) { return s.rec.RoundTrip(req) }

// stageAll stages every cassette of a run and, when all of them staged,
// commits them together (see commit). On any failure no cassette has
// changed.
func stageAll(recs []*Recorder) error {
	var errs []error
	for _, rec := range recs {
		if err := rec.Stage(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", rec.opts.Provider, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w\nno cassette of this run was written", err)
	}
	if beforeCommit != nil {
		beforeCommit()
	}
	return commit(recs...)
}

// beforeCommit, set by tests, runs between staging and committing.
var beforeCommit func()

// replayConfig is the harness configuration replaying the cassettes, with
// or without the goldens.
func (s *session) replayConfig(noGoldens bool) harness.Config {
	return harness.Config{
		CassetteDir: s.cfg.CassetteDir, GoldenDir: s.cfg.GoldenDir, NoGoldens: noGoldens,
		Registry: s.reg, Factories: s.cfg.Factories, Faults: s.cfg.Faults,
	}
}

// replay checks a recorded run's new cassettes with the harness and
// collects its drift from the goldens, printing it.
func (s *session) replay(ctx context.Context, r *RunResult) {
	sc := s.scenario(r.Scenario)
	if sc == nil {
		return
	}
	hres := harness.RunScenario(ctx, s.replayConfig(false), sc, r.Model)
	r.Replay = &hres
	for _, f := range hres.Findings {
		if f.Level != harness.LevelError || !strings.HasPrefix(f.ID, "golden/") {
			continue
		}
		if f.Diff == "" && strings.Contains(f.Message, "does not exist") {
			r.NoGolden = append(r.NoGolden, f)
		} else {
			r.Drift = append(r.Drift, f)
		}
	}
	switch {
	case r.ReplayFailed():
		fmt.Fprintf(s.out, "REPLAY FAILED %s: %s\n", r.Name(), indent(hres.Reason, "    "))
	case len(r.Drift) > 0:
		for _, f := range r.Drift {
			fmt.Fprintf(s.out, "drift  %s: %s\n", r.Name(), f.Message)
			if f.Diff != "" {
				fmt.Fprintln(s.out, "    "+indent(f.Diff, "    "))
			}
		}
	case len(r.NoGolden) > 0:
		fmt.Fprintf(s.out, "new    %s: no goldens yet under %s\n", r.Name(), scenario.GoldenDir(s.cfg.GoldenDir, sc, r.Model))
	}
}

// scenario finds a loaded scenario by id.
func (s *session) scenario(id string) *scenario.Scenario {
	for _, sc := range s.cfg.Scenarios {
		if sc.ID == id {
			return sc
		}
	}
	return nil
}

// progress writes one line about a finished run.
func (s *session) progress(i, n int, r *RunResult) {
	var what string
	switch r.Action {
	case ActionRecorded:
		what = "recorded " + strings.Join(r.Cassettes, ", ")
		if len(r.Unchanged) == len(r.Cassettes) {
			what += " (unchanged)"
		} else if len(r.Unchanged) > 0 {
			what += " (unchanged: " + strings.Join(r.Unchanged, ", ") + ")"
		}
	case ActionNoTraffic:
		what = "passed without reaching a provider: no cassette needed"
		if r.Reason != "" {
			what = "ran without reaching a provider: no cassette needed"
		}
	case ActionSkipped:
		what = "skipped: " + r.Reason
	case ActionPlanned:
		what = "would record " + strings.Join(r.Cassettes, ", ")
		if s.cfg.Force || s.cfg.OnlyFailing {
			what += " (overwriting any existing)"
		}
		if r.Reason != "" {
			what += "; " + r.Reason
		}
	case ActionFailed:
		what = "FAILED: " + indent(r.Reason, "    ")
	}
	if (r.Action == ActionRecorded || r.Action == ActionNoTraffic) && r.Reason != "" {
		what += "; " + indent(r.Reason, "    ")
	}
	w := len(fmt.Sprint(n))
	fmt.Fprintf(s.out, "[%*d/%d] %s: %s (%s)\n", w, i, n, r.Name(), what, r.Duration.Round(time.Millisecond))
}

func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
