package certify_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/openaicompat"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/harness"
)

// realSleeper is an adapter's own clock: it reads the time it is given
// but sleeps on a real timer, so the run's clock never sees the wait.
type realSleeper struct{ now adapters.Clock }

func (c realSleeper) Now() time.Time { return c.now.Now() }

func (realSleeper) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sleepsItself builds metis's Anthropic adapter sleeping its backoff in
// real time: an adapter whose waits the harness can only time.
func sleepsItself(c adapters.Config) (adapters.Adapter, error) {
	c.Clock = realSleeper{now: c.Clock}
	return anthropic.New(c)
}

// TestOwnBackoffCertifies certifies an adapter that sleeps on its own
// timers on the retry scenarios and cancel during_backoff: every wait
// within the budget is judged from the timing of its requests, a longer
// one skips the run saying why instead of being waited out, and the
// whole certification takes seconds, not minutes.
func TestOwnBackoffCertifies(t *testing.T) {
	const budget = 4 * time.Second
	plan, err := certify.NewPlan(certify.Target{Provider: "anthropic", New: sleepsItself, Kind: "go"},
		certify.Options{IDs: []string{"retry/*", "cancel/during-backoff"}, WaitBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) < 10 {
		t.Fatalf("%d runs, want the retry scenarios on anthropic", len(plan.Runs))
	}
	start := time.Now()
	report, err := plan.Certify(t.Context(), len(plan.Runs), nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the certification took %s; a wait beyond the budget must not be waited out", took)
	}
	byID := map[string]harness.ScenarioResult{}
	for _, res := range report.Results() {
		byID[res.ID] = res
		if res.Status == harness.StatusFail {
			t.Errorf("%s failed: %s", res.Name(), res.Reason)
		}
	}
	// Judged from the gaps between requests, not skipped.
	for _, id := range []string{"retry/retry-after-seconds", "retry/retry-after-ms", "retry/backoff-then-success", "cancel/during-backoff"} {
		if res, ok := byID[id]; !ok || res.Status != harness.StatusPass {
			t.Errorf("%s: %s (%s), want pass", id, res.Status, res.Reason)
		}
	}
	// A 60 s wait (Retry-After 120, capped) is beyond the budget.
	capped := byID["retry/retry-after-capped"]
	if capped.Status != harness.StatusSkip || !strings.Contains(capped.Reason, "wait budget") || !strings.Contains(capped.Reason, "1m0s") {
		t.Errorf("retry/retry-after-capped: %s (%s), want a skip naming the budget and the 60 s wait", capped.Status, capped.Reason)
	}
}

// retriesAfterOutput is an adapter that starts its stream again when it
// fails after events: the retry after partial output 000 §6.4 forbids.
type retriesAfterOutput struct{ adapters.Adapter }

func (a retriesAfterOutput) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		for attempt := range 2 {
			failed := false
			for ev, err := range a.Adapter.Stream(ctx, req) {
				if err != nil && attempt == 0 {
					failed = true
					break
				}
				if !yield(ev, err) {
					return
				}
			}
			if !failed {
				return
			}
		}
	}
}

func TestRetryAfterPartialOutputFails(t *testing.T) {
	target := certify.Target{Provider: "anthropic", Kind: "go", New: func(c adapters.Config) (adapters.Adapter, error) {
		a, err := anthropic.New(c)
		return retriesAfterOutput{a}, err
	}}
	plan, err := certify.NewPlan(target, certify.Options{IDs: []string{"retry/no-retry-after-first-event"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) == 0 {
		t.Fatal("no run")
	}
	res := plan.Exec(t.Context(), plan.Runs[0])
	if res.Status != harness.StatusFail {
		t.Fatalf("status %s, want fail", res.Status)
	}
	var msgs []string
	for _, st := range res.Steps {
		for _, c := range st.Checks {
			if !c.OK && c.Name == harness.CheckBackoff {
				msgs = append(msgs, c.Message)
			}
		}
	}
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "no retry after partial output") }) {
		t.Errorf("no failing %s check names the retry after partial output; failing checks: %v", harness.CheckBackoff, res.Steps)
	}
}

// shortSleeper sleeps a tenth of every wait on the run's clock: it
// retries before the Retry-After it was given.
type shortSleeper struct{ adapters.Clock }

func (c shortSleeper) Sleep(ctx context.Context, d time.Duration) error {
	return c.Clock.Sleep(ctx, d/10)
}

func TestRetryBeforeRetryAfterFails(t *testing.T) {
	target := certify.Target{Provider: "anthropic", Kind: "go", New: func(c adapters.Config) (adapters.Adapter, error) {
		c.Clock = shortSleeper{c.Clock}
		return anthropic.New(c)
	}}
	plan, err := certify.NewPlan(target, certify.Options{IDs: []string{"retry/retry-after-seconds"}})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Exec(t.Context(), plan.Runs[0])
	f := certify.FirstFailure(res)
	if f == nil || f.Check != harness.CheckBackoff || !strings.Contains(f.Message, "Retry-After asks for 3s") {
		t.Errorf("first failure %+v, want the %s check naming the 3 s Retry-After", f, harness.CheckBackoff)
	}
}

// noProbe hides its adapter's readiness probe (adapters.Readier), which
// is optional.
type noProbe struct{ adapters.Adapter }

func TestMissingProbeSkips(t *testing.T) {
	target := certify.Target{Provider: "vllm", Kind: "go", New: func(c adapters.Config) (adapters.Adapter, error) {
		a, err := openaicompat.New(c)
		return noProbe{a}, err
	}}
	plan, err := certify.NewPlan(target, certify.Options{IDs: []string{"local/ready-loaded"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) == 0 {
		t.Fatal("no run")
	}
	res := plan.Exec(t.Context(), plan.Runs[0])
	if res.Status != harness.StatusSkip || !strings.Contains(res.Reason, "no readiness probe") {
		t.Errorf("%s: %s (%s), want a skip naming the missing probe", res.Name(), res.Status, res.Reason)
	}
}

// toolsEverywhere declares tool support for every model.
type toolsEverywhere struct{ adapters.Adapter }

func (a toolsEverywhere) Capabilities(model string) canonical.Capabilities {
	c := a.Adapter.Capabilities(model)
	c.SupportsTools = true
	return c
}

// TestDeclaredCapabilitiesDecideRefusals certifies an Ollama adapter that
// declares tools for Llama 3.3, which metis's registry does not: the
// swap refusal the scenario checks does not apply to it.
func TestDeclaredCapabilitiesDecideRefusals(t *testing.T) {
	target := certify.Target{Provider: "ollama", Kind: "go", New: func(c adapters.Config) (adapters.Adapter, error) {
		a, err := openaicompat.New(c)
		return toolsEverywhere{a}, err
	}}
	plan, err := certify.NewPlan(target, certify.Options{IDs: []string{"swap/refused-tools"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) == 0 {
		t.Fatal("no run")
	}
	for _, run := range plan.Runs {
		res := plan.Exec(t.Context(), run)
		if res.Status != harness.StatusSkip || !strings.Contains(res.Reason, "allow this swap") {
			t.Errorf("%s: %s (%s), want a skip saying the declared capabilities allow the swap", res.Name(), res.Status, res.Reason)
		}
	}
}
