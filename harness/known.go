package harness

import (
	"fmt"
	"slices"

	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// knownFailure returns the known failure sc declares for its run on
// model: one whose Models name the model, its column or its provider, or
// one without Models.
func (c *Config) knownFailure(sc *scenario.Scenario, model string) *scenario.KnownFailure {
	keys := c.modelKeys(model)
	for i, kf := range sc.KnownFailures {
		if len(kf.Models) == 0 || slices.ContainsFunc(kf.Models, func(m string) bool { return slices.Contains(keys, m) }) {
			return &sc.KnownFailures[i]
		}
	}
	return nil
}

// KnownFailureOf returns the known failure sc declares for its run on
// model (conform list --known-failures), or nil when the run is not marked.
func (c *Config) KnownFailureOf(sc *scenario.Scenario, model string) *scenario.KnownFailure {
	return c.knownFailure(sc, model)
}

// applyKnownFailure turns a run that failed as a known failure of sc says
// into StatusKnownFailure, and fails one that passed although marked.
func applyKnownFailure(cfg *Config, sc *scenario.Scenario, res *ScenarioResult) {
	kf := cfg.knownFailure(sc, res.Model)
	if kf == nil {
		return
	}
	switch res.Status {
	case StatusFail:
		res.Status = StatusKnownFailure
		res.Reason = fmt.Sprintf("known failure (%s); got: %s", kf.Symptom, res.Reason)
		normalizeMessages(res)
	case StatusPass:
		res.Status = StatusFail
		res.Reason = fmt.Sprintf("marked as a known failure (%s) but passed: remove the mark from %s", kf.Symptom, sc.File)
	}
}

// KnownFailures returns the runs that failed as known adapter bugs.
func (r *Result) KnownFailures() []ScenarioResult {
	var out []ScenarioResult
	for _, run := range r.Runs {
		if run.Status == StatusKnownFailure {
			out = append(out, run)
		}
	}
	return out
}

// normalizeMessages renumbers the run-specific ids (canonical tool ids,
// request ids, ULIDs) in a result's reason, step errors, checks and
// findings, as the goldens are, so that a known failure reads the same on
// every run.
func normalizeMessages(res *ScenarioResult) {
	n := check.NewNormalizer()
	norm := func(s string) string { return string(n.Apply([]byte(s))) }
	res.Reason = norm(res.Reason)
	for i := range res.Steps {
		st := &res.Steps[i]
		st.Error = norm(st.Error)
		for j := range st.Checks {
			st.Checks[j].Message = norm(st.Checks[j].Message)
		}
	}
	for i := range res.Findings {
		res.Findings[i].Message = norm(res.Findings[i].Message)
		res.Findings[i].Diff = norm(res.Findings[i].Diff)
	}
}
