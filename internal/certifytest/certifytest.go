// Package certifytest holds what the certification tests share: the
// outcomes `conform run` gives every run, to compare other paths with,
// and an adapter with one mapping broken.
package certifytest

import (
	"context"
	"iter"
	"path/filepath"
	"slices"
	"strings"
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

// CertifiableIDs lists the ids of the scenarios in outcomes (as
// ConformOutcomes gives them) that have no failing run on provider's
// models — conform run's known failures show as failures there — and
// whose id has none of the prefixes in skip. A built-in adapter is
// certified on those.
func CertifiableIDs(outcomes map[string]harness.Status, provider string, skip ...string) []string {
	failing := map[string]bool{}
	var ids []string
	for name, st := range outcomes {
		id, model, _ := strings.Cut(strings.TrimSuffix(name, "]"), " [")
		if st == harness.StatusFail && canonical.ProviderOf(model) == provider {
			failing[id] = true
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	ids = slices.DeleteFunc(ids, func(id string) bool {
		return failing[id] || slices.ContainsFunc(skip, func(p string) bool { return strings.HasPrefix(id, p) })
	})
	slices.Sort(ids)
	return ids
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
