package conformtest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/conformtest"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/internal/certifytest"
)

// builtin returns metis's own constructor for a registry adapter. Over
// HTTP its client splits event streams as they arrive, one event per
// read, as replay does in process: the built-in adapters decode every
// event already read before they notice a cancellation, so over a socket
// a mid-stream cancel would land later than in process.
func builtin(t *testing.T, provider string) adapters.Factory {
	t.Helper()
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	c, err := reg.Config(provider, func(string) string { return "k" })
	if err != nil {
		t.Fatal(err)
	}
	f := providers.Factories()[c.Type]
	return func(c adapters.Config) (adapters.Adapter, error) {
		if c.HTTPClient == nil {
			c.Transport = replay.ResplitStream(nil)
		}
		return f(c)
	}
}

func suiteProviders(t *testing.T) []string {
	t.Helper()
	ps, err := certify.SuiteProviders(certify.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 4 {
		t.Fatalf("the suite talks to %v only; want at least anthropic, openai, gemini and a compatible server", ps)
	}
	return ps
}

// Every built-in adapter certifies through the Go API, in process and
// over the replay server, with the same outcome for every run as
// `conform run` gives it.
func TestBuiltinAdaptersCertify(t *testing.T) {
	want := certifytest.ConformOutcomes(t, "..")
	for _, mode := range []struct {
		name string
		opts []conformtest.Option
	}{{"in-process", nil}, {"over-http", []conformtest.Option{conformtest.OverHTTP()}}} {
		t.Run(mode.name, func(t *testing.T) {
			for _, provider := range suiteProviders(t) {
				t.Run(provider, func(t *testing.T) {
					// Scenarios marked as known failures of this adapter
					// (conform run's known_failures) would not certify: they
					// document bugs still to fix, so they are left out here.
					opts := append(slices.Clone(mode.opts), conformtest.Scenarios(withoutKnownFailures(want, provider)...))
					report := conformtest.Run(t, provider, builtin(t, provider), opts...)
					if !report.Certified {
						t.Errorf("%s", report.Verdict())
					}
					got := map[string]harness.Status{}
					wantHere := map[string]harness.Status{}
					for _, r := range report.Runs {
						name := r.Scenario + " [" + r.Model + "]"
						got[name] = r.Status
						wantHere[name] = want[name]
					}
					if diff := cmp.Diff(wantHere, got); diff != "" {
						t.Errorf("outcomes differ from conform run's (-conform +certify):\n%s", diff)
					}
				})
			}
		})
	}
}

// withoutKnownFailures lists the scenario ids of outcomes that have no
// failing run on provider's models (conform run's known failures show as
// failures in outcomes).
func withoutKnownFailures(outcomes map[string]harness.Status, provider string) []string {
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
	ids = slices.DeleteFunc(ids, func(id string) bool { return failing[id] })
	slices.Sort(ids)
	return ids
}
