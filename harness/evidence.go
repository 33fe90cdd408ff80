package harness

import (
	"encoding/json"
	"slices"

	"github.com/metis-llm/metis/harness/check"
)

// evidence keeps a failed run's wire requests and event trace in its
// result, normalized as the goldens are, for the reports.
func (r *run) evidence(res *ScenarioResult) {
	if res.Status != StatusFail {
		return
	}
	r.mu.Lock()
	reqs, trace := slices.Clone(r.requests), slices.Clone(r.trace)
	r.mu.Unlock()
	norm := check.NewNormalizer()
	if data, err := check.RequestsJSON(reqs); err == nil {
		res.WireRequests = norm.Apply(data)
	}
	if data, err := check.EventsJSON(trace); err == nil {
		res.Events = norm.Apply(data)
	}
}

// ReformatEvidence gives a run's wire requests and event trace, read back
// from a report.json where they were indented as part of it, the layout
// the run wrote them in (requestsJSON, eventsJSON).
func ReformatEvidence(run *ScenarioResult) {
	if len(run.WireRequests) > 0 {
		var reqs []check.WireRequest
		if json.Unmarshal(run.WireRequests, &reqs) == nil {
			if data, err := check.RequestsJSON(reqs); err == nil {
				run.WireRequests = data
			}
		}
	}
	if len(run.Events) > 0 {
		var lines []check.TraceLine
		if json.Unmarshal(run.Events, &lines) == nil {
			if data, err := check.EventsJSON(lines); err == nil {
				run.Events = data
			}
		}
	}
}
