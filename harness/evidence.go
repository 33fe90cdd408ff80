package harness

import (
	"encoding/json"
	"slices"
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
	norm := newNormalizer()
	if data, err := requestsJSON(reqs); err == nil {
		res.WireRequests = norm.apply(data)
	}
	if data, err := eventsJSON(trace); err == nil {
		res.Events = norm.apply(data)
	}
}

// ReformatEvidence gives a run's wire requests and event trace, read back
// from a report.json where they were indented as part of it, the layout
// the run wrote them in (requestsJSON, eventsJSON).
func ReformatEvidence(run *ScenarioResult) {
	if len(run.WireRequests) > 0 {
		var reqs []wireRequest
		if json.Unmarshal(run.WireRequests, &reqs) == nil {
			if data, err := requestsJSON(reqs); err == nil {
				run.WireRequests = data
			}
		}
	}
	if len(run.Events) > 0 {
		var lines []traceLine
		if json.Unmarshal(run.Events, &lines) == nil {
			if data, err := eventsJSON(lines); err == nil {
				run.Events = data
			}
		}
	}
}
