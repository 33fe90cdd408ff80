package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/conformtest"
	"github.com/metis-llm/metis/harness"
)

// Known is a library's list of expected failures: run name
// ("<scenario-id>/<model>", as certify.Run.Name gives it) → why it fails,
// with the evidence (the library's code path, a recording or the
// provider's documentation, the upstream issue).
type Known map[string]string

// Library names the library under test and what is expected of it.
type Library struct {
	Name, Version string
	// Known are the expected failures.
	Known Known
	// Skip leaves out scenarios by id glob or tag, as certify.Options.Skip.
	Skip []string
	// Decline leaves out the runs on the matrix models it returns true
	// for: a wire dialect the library does not speak (langchaingo has
	// no OpenAI Responses API).
	Decline func(model string) bool
}

// Certify runs metis's conformance suite through the adapter newAdapter
// builds as provider's, as conformtest.Run does (the same certify.Plan,
// one subtest per run), but holds the outcome to known: a failing run
// listed there passes its subtest with the reason logged, and a failing
// run not listed — or a listed run that no longer fails — fails it, so
// that the list stays true. It writes the results bundle when
// conformtest.BundleEnv names a directory.
func Certify[A adapters.Adapter](t *testing.T, provider string, newAdapter func(adapters.Config) (A, error), lib Library) {
	t.Helper()
	name, version, known := lib.Name, lib.Version, lib.Known
	target := certify.Target{
		Provider: provider, Name: name, Version: version, Kind: "go",
		New: func(c adapters.Config) (adapters.Adapter, error) { return newAdapter(c) },
	}
	plan, err := certify.NewPlan(target, certify.Options{Skip: lib.Skip})
	if err != nil {
		t.Fatalf("certify %s as %s: %v", name, provider, err)
	}
	if lib.Decline != nil {
		runs := plan.Runs[:0]
		for _, r := range plan.Runs {
			if !lib.Decline(r.Model) {
				runs = append(runs, r)
			}
		}
		plan.Runs = runs
	}
	caps, err := plan.Capabilities()
	if err != nil {
		t.Fatalf("certify %s as %s: %v", name, provider, err)
	}
	seen := map[string]bool{}
	for _, r := range plan.Runs {
		seen[r.Name()] = true
	}
	for run := range known {
		if !seen[run] {
			t.Errorf("expected failure %q names no run of the plan: remove it from the list", run)
		}
	}
	started := time.Now()
	results := make([]harness.ScenarioResult, len(plan.Runs))
	// The runs are parallel subtests (go test -parallel bounds them): a
	// stalled stream the library has no idle timeout for waits out the
	// run's own timeout. The report is made once all have ended.
	t.Cleanup(func() { report(t, plan, results, caps, started, name, provider) })
	for i, run := range plan.Runs {
		t.Run(run.Name(), func(t *testing.T) {
			t.Parallel()
			res := plan.Exec(t.Context(), run)
			results[i] = res
			reason, expected := known[run.Name()]
			switch {
			case res.Status == harness.StatusFail && expected:
				t.Logf("expected failure (%s): %s", reason, firstLine(conformtest.Describe(run, res)))
			case res.Status == harness.StatusFail:
				t.Error("unexpected failure: " + conformtest.Describe(run, res))
			case expected && res.Status == harness.StatusSkip:
				t.Errorf("listed as an expected failure (%s) but skipped: %s", reason, res.Reason)
			case expected:
				t.Errorf("listed as an expected failure (%s) but passes: remove it from the list", reason)
			case res.Status == harness.StatusSkip:
				t.Skip(res.Reason)
			}
		})
	}
}

// report logs the verdict, writes the bundle when asked, and lists the
// failures when THIRDPARTY_LIST is set.
func report(t *testing.T, plan *certify.Plan, results []harness.ScenarioResult, caps map[string]canonical.Capabilities, started time.Time, name, provider string) {
	report := plan.NewReport(results, caps, started, nil)
	t.Log(report.Verdict())
	if path := os.Getenv(conformtest.BundleEnv); path != "" {
		path = filepath.Join(path, name+"-"+provider+".tar.gz")
		if digest, err := certify.WriteBundle(path, report); err != nil {
			t.Errorf("writing the bundle: %v", err)
		} else {
			t.Logf("bundle %s (%s)", path, digest)
		}
	}
	if os.Getenv("THIRDPARTY_LIST") != "" {
		var lines []string
		for i, run := range plan.Runs {
			if results[i].Status == harness.StatusFail {
				lines = append(lines, fmt.Sprintf("%s\t%s", run.Name(), firstLine(conformtest.Describe(run, results[i]))))
			}
		}
		sort.Strings(lines)
		t.Logf("failures:\n%s", strings.Join(lines, "\n"))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
