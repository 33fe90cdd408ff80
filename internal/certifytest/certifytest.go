// Package certifytest holds what the certification tests share: the
// outcomes `conform run` gives every run, to compare other paths with,
// and an adapter with one mapping broken.
package certifytest

import (
	"context"
	"iter"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
)

// ConformOutcomes runs the suite in the checkout at root as `conform run`
// does and returns each run's status by "id [model]". A known failure
// counts as a failure: certification excuses none.
func ConformOutcomes(t testing.TB, root string) map[string]harness.Status {
	t.Helper()
	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: filepath.Join(root, "scenarios"), CassetteDir: filepath.Join(root, "cassettes"), GoldenDir: filepath.Join(root, "goldens"),
		Factories: providers.Factories(), Faults: faults.FromSpec,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]harness.Status{}
	for _, r := range res.Runs {
		if r.Status == harness.StatusKnownFailure {
			r.Status = harness.StatusFail
		}
		out[r.Name()] = r.Status
	}
	return out
}

// DropToolEnd is an adapter with one mapping broken: its streams lose
// every tool.use_end event.
type DropToolEnd struct{ adapters.Adapter }

// Stream is the wrapped adapter's stream without tool.use_end events.
func (d DropToolEnd) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		for ev, err := range d.Adapter.Stream(ctx, req) {
			if err == nil && ev.Type == canonical.EventToolUseEnd {
				continue
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
