package harness

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/session"
)

// Run loads (or takes) the scenarios, lints them, selects the scenario ×
// model runs cfg's filters and shard keep, and runs them. The error is
// non-nil only when the suite could not run (scenarios that fail to load
// or lint, a registry that fails); failed runs are in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	reg, err := cfg.registry()
	if err != nil {
		return nil, err
	}
	cfg.Registry = reg
	scs := cfg.Scenarios
	if scs == nil {
		if scs, err = scenario.LoadDir(cfg.scenarioDir()); err != nil {
			return nil, err
		}
	}
	if errs := append(scenario.Lint(scs, reg), scenario.LintColumns(scs, cfg.columns())...); errs != nil {
		return nil, errs
	}
	if _, err := Expand(scs, cfg); err != nil {
		return nil, err
	}
	pairs := Select(scs, cfg)
	res := newResult(&cfg, reg, pairs, start)
	par := max(cfg.Parallel, 1)
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var mu sync.Mutex // serializes Progress
	done := 0
	ctx, ff := newFailFast(ctx, cfg.FailFast, len(pairs))
	defer ff.cancel()
	for i, p := range pairs {
		sem <- struct{}{}
		if ff.stop() {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := RunScenario(ctx, cfg, p.Scenario, p.Model)
			if !ff.keep(i, &r) {
				return
			}
			res.Runs[i] = r
			if cfg.Progress != nil {
				mu.Lock()
				done++
				cfg.Progress(done, len(pairs), &res.Runs[i])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.Runs, res.NotRun = ff.kept(res.Runs)
	res.Duration = time.Since(start)
	return res, nil
}

// Pair is one run: a scenario and a model of its matrix.
type Pair struct {
	Scenario *scenario.Scenario
	Model    string
}

// Expand returns scs with the matrix of each scenario that names no
// models filled in from cfg's columns (see Config.Matrix); such scenarios
// are copies. The error names the scenarios whose matrix could not be
// computed.
func Expand(scs []*scenario.Scenario, cfg Config) ([]*scenario.Scenario, error) {
	return cfg.expand(scs)
}

// Select returns the runs cfg's Tags, IDs, Skip, Models, Shard and Shards keep,
// sorted by scenario id and then matrix order.
func Select(scs []*scenario.Scenario, cfg Config) []Pair {
	sorted, _ := Expand(scs, cfg) // Run reports the error; a scenario that fails to expand has no runs
	sorted = slices.Clone(sorted)
	slices.SortStableFunc(sorted, func(a, b *scenario.Scenario) int { return strings.Compare(a.ID, b.ID) })
	var out []Pair
	for _, sc := range sorted {
		if !matchTags(sc, cfg.Tags) || !matchIDs(sc, cfg.IDs) || skipped(sc, cfg.Skip) {
			continue
		}
		for _, m := range sc.Models {
			if matchModel(m, cfg.Models) {
				out = append(out, Pair{Scenario: sc, Model: m})
			}
		}
	}
	if cfg.Shards > 1 {
		var shard []Pair
		for i, p := range out {
			if i%cfg.Shards == cfg.Shard {
				shard = append(shard, p)
			}
		}
		out = shard
	}
	return out
}

func matchTags(sc *scenario.Scenario, tags []string) bool {
	if len(tags) == 0 {
		return true
	}
	for _, t := range tags {
		if slices.Contains(sc.Tags, t) {
			return true
		}
	}
	return false
}

func matchIDs(sc *scenario.Scenario, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, sc.ID); ok || g == sc.ID || strings.HasPrefix(sc.ID, strings.TrimSuffix(g, "/")+"/") {
			return true
		}
	}
	return false
}

func matchModel(m string, models []string) bool {
	if len(models) == 0 {
		return true
	}
	for _, want := range models {
		if want == m || want == canonical.ProviderOf(m) {
			return true
		}
	}
	return false
}

func (c *Config) registry() (*adapters.Registry, error) {
	if c.Registry != nil {
		return c.Registry, nil
	}
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		return nil, fmt.Errorf("harness: default registry: %w", err)
	}
	return reg, nil
}

// RunScenario runs sc on matrix model: a session starting on model, whose
// adapters come from cfg's registry and factories over the scenario's
// transports, with deterministic ids and a fake clock. A model lacking a
// capability the scenario requires is skipped. It never panics on what
// the transports or adapters return; problems are in the result.
func RunScenario(ctx context.Context, cfg Config, sc *scenario.Scenario, model string) (res ScenarioResult) {
	start := time.Now()
	res = ScenarioResult{ID: sc.ID, Title: sc.Title, File: sc.File, Line: sc.Position("/id").Line, Model: model, Tags: sc.Tags, Status: StatusPass}
	defer func() {
		res.Duration = time.Since(start)
		res.Faults = faultUses(&cfg, sc, &res)
	}()
	fail := func(format string, args ...any) ScenarioResult {
		res.Status, res.Reason = StatusFail, fmt.Sprintf(format, args...)
		return res
	}
	if len(cfg.Factories) == 0 {
		return fail("harness: Config.Factories is empty: no adapter can be built")
	}
	if _, err := cfg.checkOracle(); err != nil {
		return fail("%v", err)
	}
	if cfg.contractOnly() && sc.Oracle == scenario.OracleRegression {
		res.Status, res.Reason = StatusSkip, check.RegressionSkipReason
		return res
	}
	reg, err := cfg.registry()
	if err != nil {
		return fail("%v", err)
	}
	if len(sc.Models) == 0 && !sc.FromColumns {
		exp, err := cfg.expand([]*scenario.Scenario{sc})
		if err != nil {
			return fail("%v", err)
		}
		sc = exp[0]
	}
	r := newRun(&cfg, sc, model, reg)
	ad, err := r.adapterFor(model)
	var skip *skipRun
	if errors.As(err, &skip) {
		res.Status, res.Reason = StatusSkip, skip.reason
		return res
	}
	if err != nil {
		return fail("opening the adapter for %s: %v", model, err)
	}
	caps := ad.Capabilities(model)
	for _, name := range sc.Requires {
		has, known := scenario.Has(caps, name)
		switch {
		case !known:
			return fail("requires names unknown capability %q", name)
		case !has:
			res.Status, res.Reason = StatusSkip, fmt.Sprintf("%s does not declare %s", model, name)
			return res
		}
	}
	for _, name := range sc.Lacks {
		has, known := scenario.Has(caps, name)
		switch {
		case !known:
			return fail("lacks names unknown capability %q", name)
		case has:
			res.Status, res.Reason = StatusSkip, fmt.Sprintf("%s declares %s", model, name)
			return res
		}
	}
	parent := ctx
	timeout := cfg.runTimeout(sc)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if sc.HasReload() {
		if err := r.openFileStore(); err != nil {
			r.finish(&res)
			return fail("%v", err)
		}
	}
	r.sess = session.New(r.sessOpts)
	complete := r.execSafely(ctx, &res)
	if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
		from := "--run-timeout / Config.RunTimeout"
		if sc.RunTimeout > 0 {
			from = "the scenario's run_timeout"
		}
		res.Findings = append(res.Findings, Finding{ID: "run/timeout", Level: LevelWarn, Step: -1,
			Message: fmt.Sprintf("the run reached its run timeout of %s (%s); calls still in flight ended with the context's deadline", timeout, from)})
	}
	if complete && !cfg.NoGoldens {
		r.goldens(&res)
	}
	for _, f := range res.Findings {
		if f.Level == LevelError && res.Status == StatusPass {
			res.Status, res.Reason = StatusFail, f.ID+": "+f.Message
		}
	}
	r.finish(&res)
	if res.Status == StatusPass {
		for _, f := range res.Findings {
			if f.Level == LevelError {
				res.Status, res.Reason = StatusFail, f.ID+": "+f.Message
				break
			}
		}
	}
	if complete && res.Status == StatusPass && sc.SameAs != "" && sc.SameAs != model {
		r.sameAs(ctx, &res)
	}
	res.Sleeps = r.clock.Sleeps()
	r.evidence(&res)
	applyKnownFailure(&cfg, sc, &res)
	return res
}

// execSafely runs the steps, turning a panic in an adapter or hook into a
// failure of the run.
func (r *run) execSafely(ctx context.Context, res *ScenarioResult) (complete bool) {
	defer func() {
		if p := recover(); p != nil {
			res.Status, res.Reason = StatusFail, fmt.Sprintf("panic: %v", p)
			complete = false
		}
	}()
	return r.exec(ctx, res)
}

// goldens compares the run's transcript, wire requests and event trace
// with the golden files, normalized so that they are byte-stable.
func (r *run) goldens(res *ScenarioResult) {
	dir := scenario.GoldenDir(r.cfg.goldenDir(), r.sc, r.model)
	r.mu.Lock()
	reqs, trace := slices.Clone(r.requests), slices.Clone(r.trace)
	r.mu.Unlock()
	files := []struct {
		name   string
		render func() ([]byte, error)
	}{
		{check.GoldenTranscript, func() ([]byte, error) { return check.TranscriptJSON(r.sess.Messages()) }},
		{check.GoldenRequests, func() ([]byte, error) { return check.RequestsJSON(reqs) }},
		{check.GoldenEvents, func() ([]byte, error) { return check.EventsJSON(trace) }},
	}
	norm := check.NewNormalizer()
	golden := r.cfg.Golden
	if golden == nil {
		golden = func(path string, got []byte) (string, error) {
			return check.CompareGolden(path, got, r.cfg.UpdateGoldens)
		}
		if r.cfg.contractOnly() {
			golden = check.CompareContractGolden
		}
	}
	if r.cfg.contractOnly() {
		// Of the goldens only the transcript's contract fields are the
		// contract's (goldenOracles); they are compared projected.
		files = files[:1]
	}
	for _, f := range files {
		id := "golden/" + f.name
		data, err := f.render()
		if err != nil {
			res.Findings = append(res.Findings, Finding{ID: id, Level: LevelError, Step: -1, Message: "rendering: " + err.Error()})
			continue
		}
		p := filepath.Join(dir, f.name)
		got := norm.Apply(data)
		if r.cfg.contractOnly() {
			if got, err = check.ContractTranscript(got); err != nil {
				res.Findings = append(res.Findings, Finding{ID: id, Level: LevelError, Step: -1, Message: "projecting: " + err.Error()})
				continue
			}
		}
		diff, err := golden(p, got)
		switch {
		case errors.Is(err, check.ErrNoGolden):
			res.Findings = append(res.Findings, Finding{ID: id, Level: LevelError, Step: -1,
				Message: fmt.Sprintf("%s does not exist: run with --update (GOLDIE_UPDATE=1 under go test) to create it", p)})
		case err != nil:
			res.Findings = append(res.Findings, Finding{ID: id, Level: LevelError, Step: -1, Message: err.Error()})
		case diff != "":
			msg := fmt.Sprintf("differs from %s (-want +got)", p)
			if fields, ok := check.ContractDiffSummary(diff); ok {
				// A contract comparison names what differs first.
				msg = fields + "; " + msg
				_, diff, _ = strings.Cut(diff, "\n")
			}
			res.Findings = append(res.Findings, Finding{ID: id, Level: LevelError, Step: -1, Message: msg, Diff: diff})
		}
	}
}
