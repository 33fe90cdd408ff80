package certify

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
)

// ReportSchema is the schema version of report.json; the JSON Schema is
// report.schema.json in this package (ReportSchemaJSON).
const ReportSchema = "metis.certification/v1"

// Report is a certification's record: what was certified (the adapter,
// its declared capabilities, the suite), against what (metis), and every
// run's outcome. It is report.json in a bundle.
type Report struct {
	Schema string `json:"schema"`
	// Metis is the metis that ran the certification.
	Metis MetisInfo `json:"metis"`
	// Suite is the suite certified against.
	Suite SuiteInfo `json:"suite"`
	// Adapter is the adapter under test.
	Adapter AdapterInfo `json:"adapter"`
	// Capabilities is what the adapter declares, by model.
	Capabilities map[string]canonical.Capabilities `json:"capabilities"`
	// Certified is the verdict: no run failed, every run selected ran,
	// at least one passed, and every required profile is certified.
	Certified bool `json:"certified"`
	// Profiles are the selected profiles, in Profiles order.
	Profiles []ProfileResult `json:"profiles"`
	Counts   Counts          `json:"counts"`
	// Runs are every selected run, sorted by scenario id and then matrix
	// order.
	Runs []RunResult `json:"runs"`
	// Reproduce is a command that runs the same certification again.
	Reproduce string `json:"reproduce"`
	// Started is when the certification began (UTC); DurationMS its wall
	// time.
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"duration_ms"`

	// results are the harness results the report was made from, for
	// the bundle's JUnit.
	results []harness.ScenarioResult
}

// MetisInfo identifies the metis that certified.
type MetisInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	GoVersion string `json:"go_version"`
}

// AdapterInfo identifies the adapter under test.
type AdapterInfo struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	Command  string `json:"command,omitempty"`
	// Protocol is the stdio protocol version an exec adapter spoke.
	Protocol string `json:"protocol,omitempty"`
}

// Profile statuses.
const (
	ProfileCertified  = "certified"
	ProfileFailed     = "failed"
	ProfileNotCovered = "not_covered" // no run of it passed or failed: none applies, or the adapter declares none of what they need
	ProfileIncomplete = "incomplete"  // some of its runs did not run (go test -run)
)

// ProfileResult is one profile's verdict.
type ProfileResult struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Required says the certification was asked for this profile, so
	// that it must be certified for the verdict to be.
	Required bool `json:"required"`
	Passed   int  `json:"passed"`
	Failed   int  `json:"failed"`
	Skipped  int  `json:"skipped"`
	NotRun   int  `json:"not_run"`
}

// Counts counts runs by outcome.
type Counts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	NotRun  int `json:"not_run"`
}

// StatusNotRun is the status of a selected run that did not run (a go
// test -run filter left it out).
const StatusNotRun harness.Status = "not_run"

// RunResult is one run's outcome.
type RunResult struct {
	Scenario string         `json:"scenario"`
	Title    string         `json:"title,omitempty"`
	Model    string         `json:"model"`
	Profile  string         `json:"profile"`
	Status   harness.Status `json:"status"`
	// Reason says why the run failed or was skipped.
	Reason string `json:"reason,omitempty"`
	// FirstFailure is the first check that failed.
	FirstFailure *Failure `json:"first_failure,omitempty"`
	DurationMS   float64  `json:"duration_ms"`
	// Findings are the run's error and warning findings.
	Findings []harness.Finding `json:"findings,omitempty"`
	// Evidence names the bundle files holding a failed run's wire
	// requests and event trace.
	Evidence []string `json:"evidence,omitempty"`

	evidence map[string][]byte
}

// Failure is a run's first failing check.
type Failure struct {
	// Step counts from 1; 0 is the run as a whole.
	Step int `json:"step,omitempty"`
	// Check is the check's name (stop_reason, stream_invariants, error,
	// golden/events.json, replay/mismatch, ...).
	Check   string `json:"check"`
	Message string `json:"message"`
}

// FirstFailure returns the first failing check of a run: a failed
// step's first failed check or its error, else the first error finding,
// else the run's reason; nil for a run that did not fail.
func FirstFailure(r harness.ScenarioResult) *Failure {
	if r.Status != harness.StatusFail {
		return nil
	}
	for _, st := range r.Steps {
		if st.Status != harness.StatusFail {
			continue
		}
		for _, c := range st.Checks {
			if !c.OK {
				return &Failure{Step: st.Index + 1, Check: c.Name, Message: c.Message}
			}
		}
		if st.Error != "" {
			return &Failure{Step: st.Index + 1, Check: string(st.Kind), Message: st.Error}
		}
	}
	for _, f := range r.Findings {
		if f.Level == harness.LevelError {
			return &Failure{Step: f.Step + 1, Check: f.ID, Message: f.Message}
		}
	}
	return &Failure{Check: "run", Message: r.Reason}
}

// NewReport builds the report of a plan's runs. results holds one entry
// per plan run, in order; an entry with an empty Status did not run.
// started is when the certification began.
func (p *Plan) NewReport(results []harness.ScenarioResult, caps map[string]canonical.Capabilities, started time.Time, required []string) *Report {
	r := &Report{
		Schema:       ReportSchema,
		Metis:        Metis(),
		Suite:        p.Suite,
		Adapter:      AdapterInfo{Name: p.Target.Name, Version: p.Target.Version, Provider: p.Target.Provider, Kind: p.Target.Kind, Command: p.Target.Command, Protocol: p.protocol},
		Capabilities: caps,
		Started:      started.UTC().Truncate(time.Millisecond),
		DurationMS:   ms(time.Since(started)),
		Runs:         []RunResult{},
		results:      results,
	}
	if r.Adapter.Name == "" {
		r.Adapter.Name = p.Target.Provider
	}
	if r.Capabilities == nil {
		r.Capabilities = map[string]canonical.Capabilities{}
	}
	profiles := map[string]*ProfileResult{}
	for _, name := range p.Profiles {
		pr := &ProfileResult{Name: name, Required: slices.Contains(required, name)}
		profiles[name] = pr
	}
	for i, run := range p.Runs {
		res := harness.ScenarioResult{}
		if i < len(results) {
			res = results[i]
		}
		rr := RunResult{Scenario: run.Scenario.ID, Title: run.Scenario.Title, Model: run.Model, Profile: run.Profile,
			Status: res.Status, Reason: res.Reason, FirstFailure: FirstFailure(res), DurationMS: ms(res.Duration)}
		if rr.Status == "" {
			rr.Status, rr.Reason = StatusNotRun, "not run"
		}
		for _, f := range res.Findings {
			if f.Level == harness.LevelError || f.Level == harness.LevelWarn {
				rr.Findings = append(rr.Findings, f)
			}
		}
		if rr.Status == harness.StatusFail {
			rr.evidence = evidenceOf(res)
		}
		pr := profiles[run.Profile]
		switch rr.Status {
		case harness.StatusPass:
			r.Counts.Passed++
			pr.Passed++
		case harness.StatusFail:
			r.Counts.Failed++
			pr.Failed++
		case harness.StatusSkip:
			r.Counts.Skipped++
			pr.Skipped++
		default:
			r.Counts.NotRun++
			pr.NotRun++
		}
		r.Runs = append(r.Runs, rr)
	}
	r.Certified = r.Counts.Failed == 0 && r.Counts.NotRun == 0 && r.Counts.Passed > 0
	for _, name := range p.Profiles {
		pr := profiles[name]
		switch {
		case pr.Failed > 0:
			pr.Status = ProfileFailed
		case pr.NotRun > 0:
			pr.Status = ProfileIncomplete
		case pr.Passed > 0:
			pr.Status = ProfileCertified
		default:
			pr.Status = ProfileNotCovered
		}
		if pr.Required && pr.Status != ProfileCertified {
			r.Certified = false
		}
		r.Profiles = append(r.Profiles, *pr)
	}
	return r
}

// Results are the harness results of the report's runs, in order; a run
// that did not run has an empty Status. A report read back from JSON has
// none.
func (r *Report) Results() []harness.ScenarioResult { return r.results }

// CertifiedProfiles returns the names of the profiles certified.
func (r *Report) CertifiedProfiles() []string {
	var out []string
	for _, p := range r.Profiles {
		if p.Status == ProfileCertified {
			out = append(out, p.Name)
		}
	}
	return out
}

// Verdict is one line: "CERTIFIED for core, streaming, tools" or
// "NOT CERTIFIED: 2 of 31 runs failed".
func (r *Report) Verdict() string {
	if r.Certified {
		return fmt.Sprintf("CERTIFIED for %s", joinOr(r.CertifiedProfiles(), "no profile"))
	}
	total := len(r.Runs)
	switch {
	case r.Counts.Failed > 0:
		return fmt.Sprintf("NOT CERTIFIED: %d of %d runs failed", r.Counts.Failed, total)
	case r.Counts.NotRun > 0:
		return fmt.Sprintf("NOT CERTIFIED: %d of %d runs did not run", r.Counts.NotRun, total)
	case r.Counts.Passed == 0:
		return "NOT CERTIFIED: no run passed (none applies, or the adapter declares none of the capabilities they need)"
	}
	var missing []string
	for _, p := range r.Profiles {
		if p.Required && p.Status != ProfileCertified {
			missing = append(missing, p.Name+" ("+p.Status+")")
		}
	}
	return "NOT CERTIFIED: required profiles not certified: " + joinOr(missing, "none")
}

func joinOr(s []string, empty string) string {
	if len(s) == 0 {
		return empty
	}
	out := s[0]
	for _, x := range s[1:] {
		out += ", " + x
	}
	return out
}

func ms(d time.Duration) float64 {
	return math.Round(float64(d.Microseconds())) / 1000
}
