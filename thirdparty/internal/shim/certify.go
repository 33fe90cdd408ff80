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

// Library names the library under test and what is expected of it.
type Library struct {
	Name, Version string
	// Skip leaves out scenarios by id glob or tag, as certify.Options.Skip.
	Skip []string
	// Decline leaves out the runs on the matrix models it returns true
	// for, and the runs that swap to one: a wire dialect the library
	// does not speak (langchaingo has no OpenAI Responses API).
	Decline func(model string) bool
}

// UpdateEnv names the environment variable that, set to 1, makes Certify
// rewrite each testdata/known/<provider>.txt from the runs' outcomes
// instead of checking them, as goldens are updated: for a change of the
// suite, the shim or the library that is intended, reviewed in the diff.
const UpdateEnv = "THIRDPARTY_UPDATE"

// AllEnv names the environment variable that, set to a directory, makes
// Certify write there <library>-<provider>.txt: every failing check of
// every failing run, one a line (<run> TAB <check>), where the list keeps
// only the first. It is a scratch file for triage, not kept.
const AllEnv = "THIRDPARTY_ALL"

// Certify runs metis's conformance suite through the adapter newAdapter
// builds as provider's, as conformtest.Run does (the same certify.Plan,
// one subtest per run), but holds the outcome to the expected failures
// in testdata/known/<provider>.txt: a failing run listed there passes its
// subtest with the reason logged, and a failing run not listed — or a
// listed run that no longer fails — fails it, so that the list stays
// true. It writes the results bundle when conformtest.BundleEnv names a
// directory.
func Certify[A adapters.Adapter](t *testing.T, provider string, newAdapter func(adapters.Config) (A, error), lib Library) {
	t.Helper()
	name, version := lib.Name, lib.Version
	knownPath := filepath.Join("testdata", "known", provider+".txt")
	update := os.Getenv(UpdateEnv) == "1"
	known := Known{}
	if f, err := os.Open(knownPath); err == nil {
		known, err = ParseKnown(f, knownPath)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
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
			if !declined(r, provider, lib.Decline) {
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
		if !seen[run] && !update {
			t.Errorf("expected failure %q names no run of the plan: remove it from the list", run)
		}
	}
	started := time.Now()
	results := make([]harness.ScenarioResult, len(plan.Runs))
	// The runs are parallel subtests (go test -parallel bounds them): a
	// stalled stream the library has no idle timeout for waits out the
	// run's own timeout. The report is made once all have ended.
	t.Cleanup(func() {
		report(t, plan, results, caps, started, name, provider)
		if update {
			writeKnown(t, knownPath, plan, results, known, name, version, provider)
		}
		if dir := os.Getenv(AllEnv); dir != "" {
			writeAll(t, filepath.Join(dir, name+"-"+provider+".txt"), plan, results)
		}
	})
	for i, run := range plan.Runs {
		t.Run(run.Name(), func(t *testing.T) {
			t.Parallel()
			res := plan.Exec(t.Context(), run)
			results[i] = res
			reason, expected := known[run.Name()]
			switch {
			case update:
				if res.Status == harness.StatusSkip {
					t.Skip(res.Reason)
				}
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

// declined reports whether run is on a model decline returns true for,
// or swaps in a step to one of provider's (another provider's model is
// served by metis's own adapter, not by the library).
func declined(run certify.Run, provider string, decline func(model string) bool) bool {
	if decline(run.Model) {
		return true
	}
	for _, st := range run.Scenario.Steps {
		if st.Swap != nil && strings.HasPrefix(st.Swap.Model, provider+":") && decline(st.Swap.Model) {
			return true
		}
	}
	return false
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

// writeKnown rewrites the list from the runs' outcomes: a reason already
// written for a run that still fails is kept (it may have been edited to
// name the evidence); a new failure gets its first failing check.
func writeKnown(t *testing.T, path string, plan *certify.Plan, results []harness.ScenarioResult, old Known, name, version, provider string) {
	k := Known{}
	for i, run := range plan.Runs {
		if results[i].Status != harness.StatusFail {
			continue
		}
		if r, ok := old[run.Name()]; ok {
			k[run.Name()] = r
			continue
		}
		first := firstLine(conformtest.Describe(run, results[i]))
		if _, after, ok := strings.Cut(first, ") failed"); ok {
			first = strings.TrimPrefix(strings.TrimPrefix(after, ","), " ")
		}
		if len(first) > 300 {
			first = first[:300] + "…"
		}
		k[run.Name()] = first
	}
	header := fmt.Sprintf("Expected failures of %s %s certified as %s (thirdparty/README.md gives each group's evidence).\n"+
		"Written by %s=1 go test; one run a line: <scenario>/<model> TAB <reason>.", name, version, provider, UpdateEnv)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, WriteKnown(k, header), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d expected failures", path, len(k))
}

// writeAll writes every failing check of the failing runs to path.
func writeAll(t *testing.T, path string, plan *certify.Plan, results []harness.ScenarioResult) {
	var b strings.Builder
	for i, run := range plan.Runs {
		for _, f := range FailedChecks(results[i]) {
			fmt.Fprintf(&b, "%s\t%s\n", run.Name(), strings.Join(strings.Fields(f), " "))
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote every failing check to %s", path)
}

// FailedChecks lists every failing check of a failed run, in the order
// certify.FirstFailure looks for the first: each step's failed checks
// and error, then the run's error findings (message only, not the diff);
// a run that failed with none of them gives its reason.
func FailedChecks(r harness.ScenarioResult) []string {
	if r.Status != harness.StatusFail {
		return nil
	}
	var out []string
	for _, st := range r.Steps {
		for _, c := range st.Checks {
			if !c.OK {
				out = append(out, fmt.Sprintf("at step %d, check %s: %s", st.Index+1, c.Name, c.Message))
			}
		}
		if st.Error != "" {
			out = append(out, fmt.Sprintf("at step %d, check %s: %s", st.Index+1, st.Kind, st.Error))
		}
	}
	for _, f := range r.Findings {
		if f.Level == harness.LevelError {
			out = append(out, fmt.Sprintf("check %s: %s", f.ID, f.Message))
		}
	}
	if len(out) == 0 {
		out = append(out, "check run: "+r.Reason)
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
