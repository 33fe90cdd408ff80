package harness

import "slices"

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
