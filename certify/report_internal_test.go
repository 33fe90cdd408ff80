package certify

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
)

// fourRuns is a plan of four runs, two in core and one each in tools and
// streaming; errors has none.
func fourRuns() *Plan {
	run := func(id, profile string) Run {
		return Run{Scenario: &scenario.Scenario{ID: id, Title: id}, Model: "anthropic:claude-sonnet-4-6", Profile: profile}
	}
	return &Plan{
		Target:   Target{Provider: "anthropic", Kind: "go"},
		Profiles: []string{"core", "tools", "streaming", "errors"},
		Runs: []Run{
			run("basic/a", "core"), run("basic/b", "core"),
			run("tools/a", "tools"), run("streaming/a", "streaming"),
		},
	}
}

var (
	pass = harness.ScenarioResult{Status: harness.StatusPass}
	skip = harness.ScenarioResult{Status: harness.StatusSkip, Reason: "capability not declared"}
	// stepError failed in its second step with an error and no failed check.
	stepError = harness.ScenarioResult{Status: harness.StatusFail, Reason: "step 2 failed", Steps: []harness.StepResult{
		{Index: 0, Kind: scenario.StepUser, Status: harness.StatusPass},
		{Index: 1, Kind: scenario.StepCall, Status: harness.StatusFail, Error: "adapter returned no message"},
	}}
	notRun = harness.ScenarioResult{}
)

// TestNewReportCountsProfilesAndVerdicts builds reports from given
// results: the counts, each profile's status, whether it certifies, the
// first failure of a step that failed with an error, and the verdict's
// words for every way a certificate is refused.
func TestNewReportCountsProfilesAndVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		results   []harness.ScenarioResult
		required  []string
		counts    Counts
		statuses  map[string]string
		certified bool
		verdict   string
	}{{
		name:    "all pass",
		results: []harness.ScenarioResult{pass, pass, pass, pass},
		counts:  Counts{Passed: 4}, certified: true,
		statuses: map[string]string{"core": "certified", "tools": "certified", "streaming": "certified", "errors": "not_covered"},
		verdict:  "CERTIFIED for core, tools, streaming",
	}, {
		name:     "a step error",
		results:  []harness.ScenarioResult{pass, pass, stepError, pass},
		counts:   Counts{Passed: 3, Failed: 1},
		statuses: map[string]string{"core": "certified", "tools": "failed", "streaming": "certified", "errors": "not_covered"},
		verdict:  "NOT CERTIFIED: 1 of 4 runs failed",
	}, {
		name:     "one did not run",
		results:  []harness.ScenarioResult{pass, notRun, pass, pass},
		counts:   Counts{Passed: 3, NotRun: 1},
		statuses: map[string]string{"core": "incomplete", "tools": "certified", "streaming": "certified", "errors": "not_covered"},
		verdict:  "NOT CERTIFIED: 1 of 4 runs did not run",
	}, {
		name:     "results cut short",
		results:  []harness.ScenarioResult{pass, pass},
		counts:   Counts{Passed: 2, NotRun: 2},
		statuses: map[string]string{"core": "certified", "tools": "incomplete", "streaming": "incomplete", "errors": "not_covered"},
		verdict:  "NOT CERTIFIED: 2 of 4 runs did not run",
	}, {
		name:     "all skipped",
		results:  []harness.ScenarioResult{skip, skip, skip, skip},
		counts:   Counts{Skipped: 4},
		statuses: map[string]string{"core": "not_covered", "tools": "not_covered", "streaming": "not_covered", "errors": "not_covered"},
		verdict:  "NOT CERTIFIED: no run passed (none applies, or the adapter declares none of the capabilities they need)",
	}, {
		name:     "a required profile with no run",
		results:  []harness.ScenarioResult{pass, pass, pass, skip},
		required: []string{"core", "errors"},
		counts:   Counts{Passed: 3, Skipped: 1},
		statuses: map[string]string{"core": "certified", "tools": "certified", "streaming": "not_covered", "errors": "not_covered"},
		verdict:  "NOT CERTIFIED: required profiles not certified: errors (not_covered)",
	}, {
		name:     "two required profiles",
		results:  []harness.ScenarioResult{pass, pass, pass, skip},
		required: []string{"streaming", "errors"},
		counts:   Counts{Passed: 3, Skipped: 1},
		statuses: map[string]string{"core": "certified", "tools": "certified", "streaming": "not_covered", "errors": "not_covered"},
		verdict:  "NOT CERTIFIED: required profiles not certified: streaming (not_covered), errors (not_covered)",
	}, {
		name:     "required and certified",
		results:  []harness.ScenarioResult{pass, pass, pass, skip},
		required: []string{"core", "tools"},
		counts:   Counts{Passed: 3, Skipped: 1}, certified: true,
		statuses: map[string]string{"core": "certified", "tools": "certified", "streaming": "not_covered", "errors": "not_covered"},
		verdict:  "CERTIFIED for core, tools",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := fourRuns().NewReport(tc.results, nil, time.Now(), tc.required)
			if diff := cmp.Diff(tc.counts, r.Counts); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			statuses := map[string]string{}
			for _, p := range r.Profiles {
				statuses[p.Name] = p.Status
			}
			if diff := cmp.Diff(tc.statuses, statuses); diff != "" {
				t.Errorf("profile statuses (-want +got):\n%s", diff)
			}
			if r.Certified != tc.certified {
				t.Errorf("Certified = %v, want %v", r.Certified, tc.certified)
			}
			if got := r.Verdict(); got != tc.verdict {
				t.Errorf("Verdict() = %q\nwant        %q", got, tc.verdict)
			}
		})
	}
}

func TestFirstFailureOfAStepError(t *testing.T) {
	got := FirstFailure(stepError)
	want := &Failure{Step: 2, Check: "call", Message: "adapter returned no message"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FirstFailure (-want +got):\n%s", diff)
	}
}

// observing is a target adapter as certification sees an exec adapter:
// closing it fails, and it reports what it observed of its child.
type observing struct {
	adapters.Adapter
	closeErr error
	problems []execadapter.Problem
}

func (o observing) Close() error                    { return o.closeErr }
func (o observing) Problems() []execadapter.Problem { return o.problems }

// TestFinishAddsWhatTheAdapterObserved: a failure to close and the
// problems an exec adapter saw become findings of the run, not tied to a
// step; an error among them fails a run that had passed, naming the
// first, and a warning alone does not.
func TestFinishAddsWhatTheAdapterObserved(t *testing.T) {
	warn := execadapter.Problem{Kind: "stderr", Warn: true, Message: "child wrote to stderr"}
	crash := execadapter.Problem{Kind: "crash", Message: "child exited with status 2"}
	for _, tc := range []struct {
		name     string
		opened   []adapters.Adapter
		findings []harness.Finding
		status   harness.Status
		reason   string
	}{{
		name:   "a warning alone",
		opened: []adapters.Adapter{observing{problems: []execadapter.Problem{warn}}},
		findings: []harness.Finding{
			{ID: "exec/stderr", Level: harness.LevelWarn, Step: -1, Message: "child wrote to stderr"},
		},
		status: harness.StatusPass,
	}, {
		name:   "a crash after a warning",
		opened: []adapters.Adapter{observing{problems: []execadapter.Problem{warn, crash}}},
		findings: []harness.Finding{
			{ID: "exec/stderr", Level: harness.LevelWarn, Step: -1, Message: "child wrote to stderr"},
			{ID: "exec/crash", Level: harness.LevelError, Step: -1, Message: "child exited with status 2"},
		},
		status: harness.StatusFail, reason: "exec/crash: child exited with status 2",
	}, {
		name:   "close fails",
		opened: []adapters.Adapter{observing{}, observing{closeErr: errors.New("pipe closed")}},
		findings: []harness.Finding{
			{ID: "adapter/close", Level: harness.LevelError, Step: -1, Message: "pipe closed"},
		},
		status: harness.StatusFail, reason: "adapter/close: pipe closed",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := &execution{plan: &Plan{}, opened: tc.opened}
			res := harness.ScenarioResult{Status: harness.StatusPass}
			e.finish(&res)
			if diff := cmp.Diff(tc.findings, res.Findings); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if res.Status != tc.status || res.Reason != tc.reason {
				t.Errorf("status %s (%q), want %s (%q)", res.Status, res.Reason, tc.status, tc.reason)
			}
		})
	}
	// A run that failed already keeps its own reason.
	e := &execution{plan: &Plan{}, opened: []adapters.Adapter{observing{problems: []execadapter.Problem{crash}}}}
	res := harness.ScenarioResult{Status: harness.StatusFail, Reason: "step 3: stop_reason"}
	e.finish(&res)
	if res.Reason != "step 3: stop_reason" {
		t.Errorf("reason %q, want the run's own", res.Reason)
	}
}

// TestPlanTakesRunsThatTalkToTheTarget: a run belongs to a provider's
// plan when its column is the provider's, and also when a swap or a
// per-call model sends a call there. swap/back-and-forth-ids runs on
// anthropic, openai-chat, vllm and openrouter, swaps to Gemini and makes
// one call on vLLM.
func TestPlanTakesRunsThatTalkToTheTarget(t *testing.T) {
	columns := func(p *Plan) []string {
		var out []string
		for _, r := range p.Runs {
			out = append(out, r.Model)
		}
		return out
	}
	for _, tc := range []struct{ provider, why string }{
		{"gemini", "the swap's model"},
		{"vllm", "a call's model, beside its own column"},
	} {
		p, err := NewPlan(Target{Provider: tc.provider, New: unused}, Options{IDs: []string{"swap/back-and-forth-ids"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := columns(p); len(got) != 4 {
			t.Errorf("%s (%s): planned %v, want the scenario's four columns", tc.provider, tc.why, got)
		}
	}
	p, err := NewPlan(Target{Provider: "bedrock", New: unused}, Options{IDs: []string{"swap/back-and-forth-ids"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := columns(p); len(got) != 0 {
		t.Errorf("bedrock: planned %v; no call of the scenario goes there", got)
	}
}

// unused is a target constructor for plans that never run.
func unused(adapters.Config) (adapters.Adapter, error) { return nil, errors.New("not built") }

// identified is an adapter that names itself, as an exec adapter's
// child does in its ready line.
type identified struct{ adapters.Adapter }

func (identified) Identity() (name, version, protocol string) { return "acme-adapter", "2.1.0", "1" }

// TestCapabilitiesTakeTheAdaptersName: an adapter's own name and version
// fill a target given none, never one given; the protocol is always the
// adapter's.
func TestCapabilitiesTakeTheAdaptersName(t *testing.T) {
	newIdentified := func(c adapters.Config) (adapters.Adapter, error) {
		a, err := providers.Factories()["anthropic"](c)
		return identified{a}, err
	}
	for _, tc := range []struct {
		given, wantName, wantVersion string
	}{{"", "acme-adapter", "2.1.0"}, {"my-name", "my-name", ""}} {
		p, err := NewPlan(Target{Provider: "anthropic", Name: tc.given, New: newIdentified}, Options{IDs: []string{"basic/plain-text"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Capabilities(); err != nil {
			t.Fatal(err)
		}
		if p.Target.Name != tc.wantName || p.Target.Version != tc.wantVersion || p.protocol != "1" {
			t.Errorf("given %q: target %q %q protocol %q, want %q %q protocol 1", tc.given, p.Target.Name, p.Target.Version, p.protocol, tc.wantName, tc.wantVersion)
		}
	}
}

// TestProgressCountsEachRunOnce: Progress hears of every run as it ends,
// counting 1, 2, … up to the plan's size.
func TestProgressCountsEachRunOnce(t *testing.T) {
	var seen []int
	opts := Options{IDs: []string{"basic/plain-text", "tools/single-round-trip"}, Progress: func(done, total int, _ *harness.ScenarioResult) {
		seen = append(seen, done*10+total)
	}}
	p, err := NewPlan(Target{Provider: "anthropic", New: providers.Factories()["anthropic"]}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Certify(context.Background(), 2, nil); err != nil {
		t.Fatal(err)
	}
	if want := []int{12, 22}; !slices.Equal(seen, want) {
		t.Errorf("Progress heard (done*10+total) %v, want %v", seen, want)
	}
}

// TestSuiteProviders: the providers some run of the suite talks to,
// sorted, those reached only by a swap included; a suite that does not
// load is an error naming the file.
func TestSuiteProviders(t *testing.T) {
	got, err := SuiteProviders(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"anthropic", "bedrock", "gemini", "openai", "vertex", "vllm"} {
		if !slices.Contains(got, want) {
			t.Errorf("SuiteProviders = %v, lacks %s", got, want)
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("SuiteProviders = %v, not sorted", got)
	}
	broken := Suite{Scenarios: fstest.MapFS{"bad/one.yaml": {Data: []byte("id: bad/one\nsteps: [\n")}}}
	if _, err := SuiteProviders(broken, nil); err == nil || !strings.Contains(err.Error(), filepath.Join("bad", "one.yaml")) {
		t.Errorf("a suite that does not load: err = %v, want one naming bad/one.yaml", err)
	}
}

// TestCheckSuiteOfAPublishedVersion: a bundle naming a published suite
// version is recognized by its date when the hash is that version's,
// and refused naming both hashes when it is not.
func TestCheckSuiteOfAPublishedVersion(t *testing.T) {
	pub := Published()
	if len(pub) == 0 {
		t.Skip("no published suite version")
	}
	p := pub[0]
	v := &verifier{}
	if got, want := v.checkSuite(SuiteInfo{Version: p.Version, Hash: p.Hash}, VerifyOptions{}), "published suite "+p.Version+" ("+p.Date+")"; got != want || len(v.problems) != 0 {
		t.Errorf("checkSuite = %q, problems %v; want %q", got, v.problems, want)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	v = &verifier{}
	if got := v.checkSuite(SuiteInfo{Version: p.Version, Hash: other}, VerifyOptions{}); got != "" || len(v.problems) != 1 ||
		!strings.Contains(v.problems[0], p.Hash) || !strings.Contains(v.problems[0], other) {
		t.Errorf("a wrong hash for %s: checkSuite = %q, problems %v; want one problem naming both hashes", p.Version, got, v.problems)
	}
}

// TestVerifyAddsUpSkippedAndNotRun: a bundle whose runs include skipped
// ones and ones that did not run verifies clean: Verify adds them up as
// the report did.
func TestVerifyAddsUpSkippedAndNotRun(t *testing.T) {
	p, err := NewPlan(Target{Provider: "anthropic", Kind: "go", New: providers.Factories()["anthropic"]}, Options{IDs: []string{"basic/plain-text", "tools/single-round-trip"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Runs) != 2 {
		t.Fatalf("planned %d runs, want 2", len(p.Runs))
	}
	for _, results := range [][]harness.ScenarioResult{{skip, skip}, {skip, notRun}, {notRun, notRun}} {
		r := p.NewReport(results, nil, time.Now(), nil)
		dir := filepath.Join(t.TempDir(), "bundle")
		if _, err := WriteBundle(dir, r); err != nil {
			t.Fatal(err)
		}
		got, err := Verify(dir, VerifyOptions{})
		if err != nil {
			t.Fatalf("counts %+v: %v", r.Counts, err)
		}
		if diff := cmp.Diff(r.Counts, got.Report.Counts); diff != "" {
			t.Errorf("verified counts (-report +verified):\n%s", diff)
		}
	}
}

// TestFinishAddsTheServersMismatches: a request the replay server could
// not match, which an exec adapter only saw as a 400, fails the run as a
// finding of the whole run, and the run leaves the server.
func TestFinishAddsTheServersMismatches(t *testing.T) {
	srv, err := Builtin().NewServer(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run, err := srv.NewRun("r1", "basic/plain-text", "anthropic:claude-sonnet-4-6", []string{"anthropic"}, func(string) (http.RoundTripper, error) {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			return nil, &replay.MismatchError{Cassette: "anthropic/basic/plain-text.yaml", Method: req.Method, URL: req.URL.String(), Nearest: -1}
		}), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(run.BaseURL("anthropic")+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(run.Mismatches()) != 1 {
		t.Fatalf("the server saw %d mismatches, want 1", len(run.Mismatches()))
	}
	e := &execution{plan: &Plan{opts: Options{Server: srv}}, srvRuns: []*replay.Run{run}}
	res := harness.ScenarioResult{Status: harness.StatusPass}
	e.finish(&res)
	if len(res.Findings) != 1 {
		t.Fatalf("findings %+v, want the one mismatch", res.Findings)
	}
	f := res.Findings[0]
	if f.ID != "replay/mismatch" || f.Level != harness.LevelError || f.Step != -1 || !strings.Contains(f.Message, "anthropic/basic/plain-text.yaml") {
		t.Errorf("finding %+v, want an error replay/mismatch of the whole run (step -1) naming the cassette", f)
	}
	if res.Status != harness.StatusFail || !strings.HasPrefix(res.Reason, "replay/mismatch: ") {
		t.Errorf("status %s (%q), want a failure naming the mismatch", res.Status, res.Reason)
	}
	if got := FirstFailure(res); got.Step != 0 || got.Check != "replay/mismatch" {
		t.Errorf("FirstFailure = %+v, want the run as a whole (step 0) failing replay/mismatch", got)
	}
}
