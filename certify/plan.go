package certify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
)

// Target is the adapter under test.
type Target struct {
	// Provider is the registry adapter ("anthropic", "openai", "gemini",
	// "vllm", ...) whose wire format the adapter speaks. In every run it
	// replaces the built-in adapter of that name, and the runs that talk
	// to that provider are the ones certified.
	Provider string
	// New builds the adapter from the run's Config: Name is Provider, the
	// registry's models, options and retry count are filled in, and the
	// HTTP client (in process) or the BaseURL (over the replay server) is
	// set. The adapter's Name() must return Config.Name.
	New adapters.Factory
	// Name and Version identify the adapter in the report.
	Name, Version string
	// Kind says how it runs: "go" (in process), "exec" (a child process
	// over the stdio protocol) or "builtin" (metis's own adapter).
	Kind string
	// Command is the exec command line, for the report.
	Command string
}

// Options configure a Plan.
type Options struct {
	// Suite is what to certify against; nil means Builtin().
	Suite *Suite
	// Registry resolves models; nil means adapters.DefaultRegistry().
	Registry *adapters.Registry
	// Profiles keeps the runs of these profiles; nil keeps every one.
	Profiles []string
	// IDs keeps the scenarios whose id matches one of these globs
	// ("tools/*"), as conform run's arguments do; nil keeps every one.
	IDs []string
	// Skip drops the scenarios whose id matches one of these globs or
	// that carry one of these tags, as conform run's --skip does: the
	// scenarios an adapter does not claim, left out of the bundle.
	Skip []string
	// Wires keeps only the runs whose matrix model speaks one of these
	// wire formats ("anthropic", "responses", "chat", "gemini", ...) or
	// goes by one of these names (a column of scenarios/columns.yaml,
	// "openai-chat"; a model id): the dialects the adapter claims, as
	// conform certify's --wire does. A Chat-only library certified as
	// openai's keeps "chat" and declines the Responses column. Nil keeps
	// every run.
	Wires []string
	// WaitBudget bounds the real time a run waits for an adapter that
	// sleeps between attempts on its own timers (harness.Config.
	// WaitBudget); default harness.DefaultWaitBudget.
	WaitBudget time.Duration
	// Server, when set, makes the adapter under test reach the cassettes
	// over loopback HTTP: each adapter it builds gets a run on the server,
	// Config.BaseURL points at it and no HTTP client is injected, so the
	// adapter uses its own. The harness still sees every request (faults,
	// cancellation and the recorded wire requests work as in process).
	// An exec adapter needs it.
	Server *replay.Server
	// Pacing delays each replayed server-sent event.
	Pacing time.Duration
	// RunTimeout bounds one run; default 2 minutes.
	RunTimeout time.Duration
	// Logger receives the adapters' and sessions' logs; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is told as each run of Certify ends: how many
	// runs are done, of how many, and the run's result, as
	// harness.Config.Progress is. Calls do not overlap, whatever the
	// parallelism; conform certify prints a line per run here.
	Progress func(done, total int, r *harness.ScenarioResult)
}

// A Plan is a certification about to run: the target, the suite and the
// scenario × model runs that apply to the target.
type Plan struct {
	Target Target
	// Suite identifies the suite.
	Suite SuiteInfo
	// Runs are the runs that talk to Target.Provider and belong to the
	// selected profiles, sorted by scenario id and then matrix order;
	// scenarios whose oracle is regression (metis's own choices) have
	// none.
	Runs []Run
	// Profiles are the profiles selected.
	Profiles []string

	opts       Options
	suite      Suite
	reg        *adapters.Registry
	targetType string
	builtins   map[string]adapters.Factory
	protocol   string
}

// Run is one scenario run on one matrix model.
type Run struct {
	Scenario *scenario.Scenario
	Model    string
	Profile  string
}

// Name is "<scenario-id>/<model>", the subtest name conformtest uses.
func (r Run) Name() string { return r.Scenario.ID + "/" + r.Model }

// NewPlan loads and lints the suite and selects the runs that apply to
// target. Its errors are configuration errors: an unknown provider, a
// suite that does not load.
func NewPlan(target Target, opts Options) (*Plan, error) {
	if target.New == nil {
		return nil, errors.New("certify: the target has no constructor (Target.New)")
	}
	reg, err := registryOr(opts.Registry)
	if err != nil {
		return nil, err
	}
	cfg, err := reg.Config(target.Provider, fakeEnv)
	if err != nil {
		return nil, fmt.Errorf("certify: provider %q: %w (the registry's adapters: %s)", target.Provider, err, strings.Join(reg.Adapters(), ", "))
	}
	suite := Builtin()
	if opts.Suite != nil {
		suite = *opts.Suite
	}
	info, err := suite.Info()
	if err != nil {
		return nil, err
	}
	scs, err := suite.Load()
	if err != nil {
		return nil, err
	}
	if errs := scenario.Lint(scs, reg); errs != nil {
		return nil, errs
	}
	for _, sc := range scs {
		// A known-failure mark excuses a bug of metis's own adapter in
		// conform run; a certificate excuses nothing.
		sc.KnownFailures = nil
	}
	profiles := opts.Profiles
	if profiles == nil {
		profiles = slices.Clone(Profiles)
	}
	p := &Plan{
		Target: target, Suite: info, Profiles: profiles,
		opts: opts, suite: suite, reg: reg, targetType: cfg.Type, builtins: providers.Factories(),
	}
	sel := harness.Config{IDs: opts.IDs, Skip: opts.Skip, Registry: reg, Factories: p.builtins}
	for _, pair := range harness.Select(scs, sel) {
		if !slices.Contains(p.adaptersOf(pair.Scenario, pair.Model), target.Provider) {
			continue
		}
		if pair.Scenario.Oracle == scenario.OracleRegression {
			// It checks only metis's own choices: no certificate asks
			// them of another adapter.
			continue
		}
		if keys, wire := sel.ModelKeys(pair.Model); opts.Wires != nil && !slices.Contains(opts.Wires, wire) &&
			!slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(opts.Wires, k) }) {
			continue
		}
		profile := ProfileOf(pair.Scenario, pair.Model)
		if slices.Contains(profiles, profile) {
			p.Runs = append(p.Runs, Run{Scenario: pair.Scenario, Model: pair.Model, Profile: profile})
		}
	}
	return p, nil
}

// fakeEnv gives every API key variable the harness's fake key.
func fakeEnv(string) string { return harness.FakeKey }

// adaptersOf returns the registry adapters the run of sc on model talks
// to: its matrix model's, and those of every swap and per-call model.
func (p *Plan) adaptersOf(sc *scenario.Scenario, model string) []string {
	models := []string{model}
	for _, st := range sc.Steps {
		switch {
		case st.Kind == scenario.StepSwap && st.Swap.Model != "":
			models = append(models, st.Swap.Model)
		case st.Kind == scenario.StepCall && st.Call.Model != "":
			models = append(models, st.Call.Model)
		}
	}
	var out []string
	for _, m := range models {
		mc, err := p.reg.Resolve(m)
		if err == nil && !slices.Contains(out, mc.Adapter) {
			out = append(out, mc.Adapter)
		}
	}
	return out
}

// Exec runs one scenario run through the target: the harness's own
// RunScenario, with the target's constructor in place of the built-in
// adapter, fault injection wired, the suite's cassettes replayed and its
// goldens compared. Problems the target's adapters observed themselves
// (an exec adapter's crash, timeout or malformed line) and replay
// mismatches seen by the server are added as error findings.
func (p *Plan) Exec(ctx context.Context, run Run) harness.ScenarioResult {
	e := &execution{plan: p, run: run}
	factories := maps.Clone(p.builtins)
	builtin := factories[p.targetType]
	factories[p.targetType] = func(c adapters.Config) (adapters.Adapter, error) {
		if c.Name != p.Target.Provider {
			if builtin == nil {
				return nil, fmt.Errorf("no factory for adapter %q of type %q", c.Name, c.Type)
			}
			return builtin(c)
		}
		return e.open(c)
	}
	cfg := harness.Config{
		Registry:   p.reg,
		Factories:  factories,
		Getenv:     fakeEnv,
		Faults:     faults.FromSpec,
		Transport:  p.transport,
		Pacing:     p.opts.Pacing,
		GoldenDir:  "goldens",
		Golden:     p.golden,
		Logger:     p.opts.Logger,
		RunTimeout: p.opts.RunTimeout,
		// Over the replay server a stall is in the server, out of the
		// run's sight: the adapters' timeouts run in real time too.
		RealTimeTimers: p.opts.Server != nil,
		WaitBudget:     p.opts.WaitBudget,
		// A certificate holds the contract alone: regression checks,
		// requests.json and events.json are metis's own choices, and the
		// adapter's backoff and declared capabilities are its business.
		Oracle: scenario.OracleContract,
	}
	res := harness.RunScenario(ctx, cfg, run.Scenario, run.Model)
	e.finish(&res)
	return res
}

// execution is the state of one Exec.
type execution struct {
	plan *Plan
	run  Run

	mu      sync.Mutex
	opened  []adapters.Adapter
	srvRuns []*replay.Run
}

// open builds the target adapter for one run, over the replay server
// when the plan has one.
func (e *execution) open(c adapters.Config) (adapters.Adapter, error) {
	var tracker *callTracker
	if srv := e.plan.opts.Server; srv != nil {
		tracker = &callTracker{}
		wire := c.HTTPClient.Transport
		link := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			return wire.RoundTrip(req.WithContext(tracker.link(req.Context())))
		})
		sr, err := srv.NewRun("", e.run.Scenario.ID, e.run.Model, []string{c.Name},
			func(string) (http.RoundTripper, error) { return link, nil })
		if err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.srvRuns = append(e.srvRuns, sr)
		e.mu.Unlock()
		// The registry's base URL may have a path ("https://openrouter.ai/api"):
		// it stays, so the replay sees the paths the provider would.
		c.BaseURL = sr.BaseURL(c.Name) + basePath(c.BaseURL)
		c.HTTPClient, c.Transport = nil, nil
	}
	a, err := e.plan.Target.New(c)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, errors.New("the adapter's constructor returned nil and no error")
	}
	e.mu.Lock()
	e.opened = append(e.opened, a)
	e.mu.Unlock()
	if name := a.Name(); name != c.Name {
		return nil, fmt.Errorf("the adapter's Name() is %q; it must be the provider key it was built for (Config.Name %q)", name, c.Name)
	}
	if tracker != nil {
		tracker.Adapter = a
		if r, ok := a.(adapters.Readier); ok {
			return readyTracker{tracker, r}, nil
		}
		return tracker, nil
	}
	return a, nil
}

// finish closes the target's adapters and adds what they and the server
// observed to res.
func (e *execution) finish(res *harness.ScenarioResult) {
	e.mu.Lock()
	opened, srvRuns := e.opened, e.srvRuns
	e.mu.Unlock()
	for _, a := range opened {
		if err := a.Close(); err != nil {
			res.Findings = append(res.Findings, harness.Finding{ID: "adapter/close", Level: harness.LevelError, Step: -1, Message: err.Error()})
		}
		if d, ok := a.(problemReporter); ok {
			for _, p := range d.Problems() {
				level := harness.LevelError
				if p.Warn {
					level = harness.LevelWarn
				}
				res.Findings = append(res.Findings, harness.Finding{ID: "exec/" + p.Kind, Level: level, Step: -1, Message: p.Message})
			}
		}
	}
	for _, sr := range srvRuns {
		for _, m := range sr.Mismatches() {
			f := harness.Finding{ID: "replay/mismatch", Level: harness.LevelError, Step: -1, Message: m.Message, Diff: m.Diff}
			res.Findings = append(res.Findings, f)
		}
		e.plan.opts.Server.Remove(sr)
	}
	if res.Status == harness.StatusPass {
		for _, f := range res.Findings {
			if f.Level == harness.LevelError {
				res.Status, res.Reason = harness.StatusFail, f.ID+": "+f.Message
				break
			}
		}
	}
}

// problemReporter is an adapter that observes problems of its own,
// reported as findings ("exec/<kind>") of the run that used it: the exec
// adapter reports a child that crashed, hung, wrote a malformed line or
// wrote to stderr.
type problemReporter interface {
	Problems() []execadapter.Problem
}

// identifier is an adapter that knows its own name and version: an exec
// adapter's child says them in ready.
type identifier interface {
	Identity() (name, version, protocol string)
}

// transport replays the suite's cassette for a run's provider.
func (p *Plan) transport(provider string, sc *scenario.Scenario, model string) (http.RoundTripper, error) {
	name := CassetteName(sc, model, provider)
	// Certification matches requests semantically (docs/request-matching.md).
	opts := []replay.Option{replay.WithSemantic()}
	if p.opts.Pacing > 0 {
		opts = append(opts, replay.WithPacing(p.opts.Pacing))
	}
	pl, err := replay.LoadFS(p.suite.Cassettes, name, opts...)
	if errors.Is(err, replay.ErrNoCassette) {
		return nil, fmt.Errorf("%w: the suite has no cassette for this run", err)
	}
	return pl, err
}

// golden compares got, a transcript projected on its contract fields
// (check.ContractTranscript: the harness's Golden hook under
// OracleContract), with the projection of the suite's golden file at
// path ("goldens/<id>/<provider>/<model-name>/transcript.json").
func (p *Plan) golden(path string, got []byte) (string, error) {
	name := strings.TrimPrefix(filepath.ToSlash(path), "goldens/")
	want, err := fs.ReadFile(p.suite.Goldens, name)
	if errors.Is(err, fs.ErrNotExist) {
		return check.GoldenDiff(nil, got), fmt.Errorf("%w %s in the suite", check.ErrNoGolden, path)
	}
	if err != nil {
		return "", fmt.Errorf("reading golden %s: %w", path, err)
	}
	return check.ContractGoldenDiff(want, got)
}

// Capabilities builds the target once, without network, and returns
// what it declares for each registry model of its provider.
func (p *Plan) Capabilities() (map[string]canonical.Capabilities, error) {
	c, err := p.reg.Config(p.Target.Provider, fakeEnv)
	if err != nil {
		return nil, err
	}
	c.HTTPClient = &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("certify: no network while reading capabilities")
	})}
	if p.opts.Server != nil {
		c.BaseURL = p.opts.Server.URL + "/capabilities-only"
		c.HTTPClient = nil
	}
	a, err := p.Target.New(c)
	if err != nil {
		return nil, fmt.Errorf("certify: building the adapter: %w", err)
	}
	defer a.Close()
	if id, ok := a.(identifier); ok {
		name, version, proto := id.Identity()
		if p.Target.Name == "" {
			p.Target.Name, p.Target.Version = name, version
		}
		p.protocol = proto
	}
	out := map[string]canonical.Capabilities{}
	for _, id := range slices.Sorted(maps.Keys(c.Models)) {
		out[id] = a.Capabilities(id)
	}
	return out, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// callTracker wraps an adapter served over the replay server and keeps
// the context of its call in flight, so that the replay sees a call the
// harness cancelled as cancelled — as it does in process, where the
// adapter's own request carries the call's context.
type callTracker struct {
	adapters.Adapter

	mu  sync.Mutex
	ctx context.Context
}

func (t *callTracker) enter(ctx context.Context) func() {
	t.mu.Lock()
	prev := t.ctx
	t.ctx = ctx
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.ctx = prev
		t.mu.Unlock()
	}
}

// link returns ctx, cancelled too when the call in flight is.
func (t *callTracker) link(ctx context.Context) context.Context {
	t.mu.Lock()
	call := t.ctx
	t.mu.Unlock()
	if call == nil {
		return ctx
	}
	out, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(call, cancel)
	context.AfterFunc(out, func() { stop() })
	return linked{Context: out, call: call}
}

// linked is a context cancelled with its call, whose Err says so at
// once: AfterFunc closes Done in a goroutine of its own, and a call
// cancelled just before its request is sent (cancel before the first
// byte) must not be matched against the cassette, as in process.
type linked struct {
	context.Context
	call context.Context
}

func (c linked) Err() error {
	if err := c.call.Err(); err != nil {
		return err
	}
	return c.Context.Err()
}

func (t *callTracker) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	defer t.enter(ctx)()
	return t.Adapter.Complete(ctx, req)
}

func (t *callTracker) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		defer t.enter(ctx)()
		for ev, err := range t.Adapter.Stream(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// readyTracker is a callTracker whose adapter has a readiness probe,
// which the wrapper must not hide from the harness's ready steps.
type readyTracker struct {
	*callTracker
	r adapters.Readier
}

func (t readyTracker) Ready(ctx context.Context, model string) error {
	defer t.enter(ctx)()
	return t.r.Ready(ctx, model)
}

// SuiteProviders returns the registry adapters that some run of the suite
// talks to: the providers an adapter can be certified for.
func SuiteProviders(suite Suite, reg *adapters.Registry) ([]string, error) {
	reg, err := registryOr(reg)
	if err != nil {
		return nil, err
	}
	scs, err := suite.Load()
	if err != nil {
		return nil, err
	}
	p := &Plan{reg: reg}
	var out []string
	for _, pair := range harness.Select(scs, harness.Config{}) {
		for _, a := range p.adaptersOf(pair.Scenario, pair.Model) {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// registryOr is reg, or the default registry when reg is nil.
func registryOr(reg *adapters.Registry) (*adapters.Registry, error) {
	if reg != nil {
		return reg, nil
	}
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		return nil, fmt.Errorf("certify: default registry: %w", err)
	}
	return reg, nil
}

// basePath is the path of a base URL, without a trailing slash.
func basePath(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.EscapedPath(), "/")
}

// Certify runs the whole plan, parallel runs at a time, and returns its
// report; required names the profiles that must be certified. Its error
// is the adapter failing to start (Capabilities).
func (p *Plan) Certify(ctx context.Context, parallel int, required []string) (*Report, error) {
	started := time.Now()
	caps, err := p.Capabilities()
	if err != nil {
		return nil, err
	}
	results := make([]harness.ScenarioResult, len(p.Runs))
	sem := make(chan struct{}, max(parallel, 1))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex // orders the Progress calls
		done int
	)
	for i, run := range p.Runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = p.Exec(ctx, run)
			if p.opts.Progress != nil {
				mu.Lock()
				defer mu.Unlock()
				done++
				p.opts.Progress(done, len(p.Runs), &results[i])
			}
		}()
	}
	wg.Wait()
	return p.NewReport(results, caps, started, required), nil
}
