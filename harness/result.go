package harness

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/internal/buildinfo"
)

// Status is the outcome of a run or a step.
type Status string

// Outcomes.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
	// StatusKnownFailure is a run that failed as a known adapter bug
	// says it would (Scenario.KnownFailures); it does not fail the suite.
	StatusKnownFailure Status = "known_failure"
)

// Result is the outcome of Run: one ScenarioResult per scenario × model,
// sorted by scenario id and then matrix order, and what identifies the
// run: when it started and how long it took in wall time, which metis
// ran it, the filters that chose the runs, and the registry entries
// they used.
type Result struct {
	Runs      []ScenarioResult `json:"runs"`
	Started   time.Time        `json:"started"`
	Duration  time.Duration    `json:"duration_ns"`
	Metis     buildinfo.Info   `json:"metis"`
	Selection Selection        `json:"selection"`
	Registry  RegistryInfo     `json:"registry"`
	// NotRun counts the selected runs that Config.FailFast stopped
	// before they ended; they are not in Runs.
	NotRun int `json:"-"`
}

// RegistryInfo identifies the registry entries a Result's runs used: the
// adapters and the models (matrix models and those swapped or called
// to), each as the registry resolved it.
type RegistryInfo struct {
	Adapters []AdapterInfo `json:"adapters"`
	Models   []ModelInfo   `json:"models"`
}

// AdapterInfo is a registry adapter entry: its name and type.
type AdapterInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ModelInfo is a registry model entry: its canonical id, the adapter
// serving it and the model string sent on the wire.
type ModelInfo struct {
	ID       string `json:"id"`
	Adapter  string `json:"adapter"`
	WireName string `json:"wire_name"`
}

// newResult starts the Result of Run: its runs are filled in afterwards.
func newResult(cfg *Config, reg *adapters.Registry, pairs []Pair, start time.Time) *Result {
	return &Result{
		Runs:      make([]ScenarioResult, len(pairs)),
		Started:   start.UTC(),
		Metis:     buildinfo.Read(),
		Selection: cfg.selection(),
		Registry:  describeRegistry(reg, pairs),
	}
}

// describeRegistry lists the adapters and models pairs use, sorted.
func describeRegistry(reg *adapters.Registry, pairs []Pair) RegistryInfo {
	info := RegistryInfo{Adapters: []AdapterInfo{}, Models: []ModelInfo{}}
	if reg == nil {
		return info
	}
	seen := map[string]bool{}
	adapterSeen := map[string]bool{}
	add := func(id string) {
		m, err := reg.Resolve(id)
		if id == "" || err != nil || seen[m.ID] {
			return
		}
		seen[m.ID] = true
		info.Models = append(info.Models, ModelInfo{ID: m.ID, Adapter: m.Adapter, WireName: m.WireName})
		if adapterSeen[m.Adapter] {
			return
		}
		adapterSeen[m.Adapter] = true
		a := AdapterInfo{Name: m.Adapter}
		if c, err := reg.Config(m.Adapter, func(string) string { return FakeKey }); err == nil {
			a.Type = c.Type
		}
		info.Adapters = append(info.Adapters, a)
	}
	for _, p := range pairs {
		add(p.Model)
		for _, st := range p.Scenario.Steps {
			switch st.Kind {
			case scenario.StepSwap:
				add(st.Swap.Model)
			case scenario.StepCall:
				add(st.Call.Model)
			}
		}
	}
	slices.SortFunc(info.Models, func(a, b ModelInfo) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(info.Adapters, func(a, b AdapterInfo) int { return strings.Compare(a.Name, b.Name) })
	return info
}

// Counts returns how many runs passed, failed and were skipped.
func (r *Result) Counts() (passed, failed, skipped int) {
	for _, run := range r.Runs {
		switch run.Status {
		case StatusPass:
			passed++
		case StatusFail:
			failed++
		case StatusSkip:
			skipped++
		}
	}
	return
}

// Failed reports whether any run failed.
func (r *Result) Failed() bool {
	_, failed, _ := r.Counts()
	return failed > 0
}

// Summary lists each failed or skipped run with its reason and ends with
// the line "N passed, N failed, N skipped".
func (r *Result) Summary() string {
	var sb strings.Builder
	for _, run := range r.Runs {
		switch run.Status {
		case StatusFail:
			fmt.Fprintf(&sb, "FAIL %s [%s]: %s\n", termText(run.ID), termText(run.Model), termText(firstLine(run.Reason)))
		case StatusSkip:
			fmt.Fprintf(&sb, "SKIP %s [%s]: %s\n", termText(run.ID), termText(run.Model), termText(firstLine(run.Reason)))
		}
	}
	if line := r.SourceSummary(); line != "" {
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	p, f, s := r.Counts()
	fmt.Fprintf(&sb, "%d passed, %d failed, %d skipped", p, f, s)
	return sb.String()
}

// SourceMixed is the Source of a run whose cassettes have different
// sources.
const SourceMixed = "mixed"

// SourceCount counts the runs replayed from cassettes of one source.
type SourceCount struct {
	// Source is the cassettes' provenance source: "imported" (real
	// traffic converted by record import), "live" (recorded from the
	// provider), "emulator" (synthesized by metis's emulator), "mixed",
	// or "" for runs that replayed no cassette.
	Source  string `json:"source"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	// KnownFailures count runs failing as a known adapter bug.
	KnownFailures int `json:"known_failures,omitempty"`
}

// CountsBySource counts runs by cassette source, in the order imported,
// live, emulator, mixed, none.
func (r *Result) CountsBySource() []SourceCount {
	order := []string{"imported", "live", "emulator", SourceMixed, ""}
	by := map[string]*SourceCount{}
	for _, run := range r.Runs {
		c := by[run.Source]
		if c == nil {
			c = &SourceCount{Source: run.Source}
			by[run.Source] = c
			if !slices.Contains(order, run.Source) {
				order = append(order, run.Source)
			}
		}
		switch run.Status {
		case StatusPass:
			c.Passed++
		case StatusFail:
			c.Failed++
		case StatusSkip:
			c.Skipped++
		case StatusKnownFailure:
			c.KnownFailures++
		}
	}
	var out []SourceCount
	for _, s := range order {
		if c := by[s]; c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// SourceSummary is one line counting runs by cassette source, real
// traffic first: "by cassette source: imported 12 (12 passed); emulator
// 43 (42 passed, 1 failed); no cassette 2 (2 passed)". It is empty when no run
// replayed a cassette.
func (r *Result) SourceSummary() string {
	counts := r.CountsBySource()
	if len(counts) == 0 || len(counts) == 1 && counts[0].Source == "" {
		return ""
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		var st []string
		for _, x := range []struct {
			n    int
			word string
		}{{c.Passed, "passed"}, {c.Failed, "failed"}, {c.Skipped, "skipped"}, {c.KnownFailures, "known failures"}} {
			if x.n > 0 {
				st = append(st, fmt.Sprintf("%d %s", x.n, x.word))
			}
		}
		parts[i] = fmt.Sprintf("%s %d (%s)", or(c.Source, "no cassette"), c.Passed+c.Failed+c.Skipped+c.KnownFailures, strings.Join(st, ", "))
	}
	return "by cassette source: " + strings.Join(parts, "; ")
}

// termText is s for one line of a terminal: each control character but
// tab (a line end, a carriage return that would overwrite the line, an
// escape sequence) written as its Go escape, \r or \x1b.
func termText(s string) string {
	if !strings.ContainsFunc(s, isTermControl) {
		return s
	}
	var sb strings.Builder
	for _, c := range s {
		if isTermControl(c) {
			q := strconv.QuoteRune(c)
			sb.WriteString(q[1 : len(q)-1])
		} else {
			sb.WriteRune(c)
		}
	}
	return sb.String()
}

func isTermControl(c rune) bool { return c != '\t' && unicode.IsControl(c) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// ScenarioResult is the outcome of one scenario run on one matrix model.
type ScenarioResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// File and Line locate the scenario (the line of its id).
	File  string   `json:"file"`
	Line  int      `json:"line,omitempty"`
	Model string   `json:"model"`
	Tags  []string `json:"tags,omitempty"`
	// Source is the provenance source of the cassettes the run replayed:
	// imported, live or emulator (SourceMixed when they differ), empty
	// when it replayed none.
	Source string `json:"source,omitempty"`
	// ServedModels are the models that served the run's calls as the
	// providers' responses named them (Response.ServedModel), in the
	// order first seen.
	ServedModels []string `json:"served_models,omitempty"`
	// Status is fail when a step failed or a finding has level error.
	Status Status `json:"status"`
	// Reason says why the run failed or was skipped.
	Reason   string        `json:"reason,omitempty"`
	Steps    []StepResult  `json:"steps"`
	Findings []Finding     `json:"findings,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Sleeps are the backoff waits the adapters asked the clock for, in
	// order; the fake clock returns at once.
	Sleeps []time.Duration `json:"sleeps_ns,omitempty"`
	// WireRequests and Events are the run's wire requests and event trace,
	// normalized as in the goldens; kept for failed runs only, so that a
	// report shows what went over the wire.
	WireRequests json.RawMessage `json:"wire_requests,omitempty"`
	Events       json.RawMessage `json:"events,omitempty"`
	// Faults are the calls an inject step put a fault on, with their
	// outcome: what report.json's fault_matrix is built from.
	Faults []FaultUse `json:"faults,omitempty"`
}

// Name is "id [model]".
func (r *ScenarioResult) Name() string { return r.ID + " [" + r.Model + "]" }

// StepResult is the outcome of one step.
type StepResult struct {
	Index  int               `json:"index"`
	Kind   scenario.StepKind `json:"kind"`
	Pos    scenario.Pos      `json:"pos"`
	Status Status            `json:"status"`
	// Error is the failure that stopped the step, if any.
	Error  string        `json:"error,omitempty"`
	Checks []check.Check `json:"checks,omitempty"`
}

// Finding levels.
const (
	LevelError = "error"
	LevelWarn  = "warn"
)

// Finding is a problem found in a run: a stream invariant violation
// (ID "stream/<rule>"), a golden difference ("golden/<file>", Diff set),
// an unused cassette interaction ("cassette/unused"), ...
type Finding struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Step is the step's index, -1 for the run as a whole.
	Step    int    `json:"step"`
	Message string `json:"message"`
	Diff    string `json:"diff,omitempty"`
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s %s: %s", f.Level, f.ID, f.Message)
	if f.Step >= 0 {
		s = fmt.Sprintf("step %d: %s", f.Step+1, s)
	}
	if f.Diff != "" {
		s += "\n" + f.Diff
	}
	return s
}
