package harness

import (
	"maps"
	"slices"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/scenario"
)

// FaultUse is one call of a run that an inject step put a fault on: the
// fault kinds of its spec (several for a sequence), the call step, the
// run's column (its model when it has none), whether the call streamed,
// and the call's outcome: pass or fail as the step went, known_failure
// when the run is a known failure, skip when the call did not run.
type FaultUse struct {
	Kinds    []string `json:"kinds"`
	Step     int      `json:"step"`
	Column   string   `json:"column"`
	Streamed bool     `json:"streamed"`
	Status   Status   `json:"status"`
}

// faultUses lists the calls of sc's run that carry a fault, with their
// outcome in res.
func faultUses(cfg *Config, sc *scenario.Scenario, res *ScenarioResult) []FaultUse {
	column := cfg.columnOf(res.Model)
	if column == "" {
		column = res.Model
	}
	var out []FaultUse
	for i, st := range sc.Steps {
		if st.Kind != scenario.StepInject {
			continue
		}
		j := i + 1
		for j < len(sc.Steps) && sc.Steps[j].Kind != scenario.StepCall && sc.Steps[j].Kind != scenario.StepInject {
			j++
		}
		if j == len(sc.Steps) || sc.Steps[j].Kind != scenario.StepCall {
			continue
		}
		status := StatusSkip
		for _, sr := range res.Steps {
			if sr.Index == j {
				status = sr.Status
			}
		}
		if status == StatusFail && res.Status == StatusKnownFailure {
			status = StatusKnownFailure
		}
		// With both: true the streamed call comes first and meets the
		// fault; the non-streamed one meets it only if attempts are left,
		// so the call counts as streamed.
		out = append(out, FaultUse{Kinds: specKinds(st.Inject), Step: j, Column: column, Streamed: sc.Steps[j].Call.Streams(), Status: status})
	}
	return out
}

// specKinds returns the fault kinds of an inject spec, in order: those
// of the spec as each of its per_wire and per_model entries completes it
// (resolveInject's merge), or of the spec alone; a spec that does not
// parse either way counts as "invalid".
func specKinds(spec map[string]any) []string {
	base := map[string]any{}
	var overs []map[string]any
	for k, v := range spec {
		switch k {
		case "per_wire", "per_model":
			m, _ := v.(map[string]any)
			for _, key := range slices.Sorted(maps.Keys(m)) {
				if over, ok := m[key].(map[string]any); ok {
					overs = append(overs, over)
				}
			}
		default:
			base[k] = v
		}
	}
	specs := []map[string]any{base}
	for _, over := range overs {
		merged := maps.Clone(base)
		maps.Copy(merged, over)
		specs = append(specs, merged)
	}
	var out []string
	for _, sp := range specs {
		fs, err := faults.ParseAll(sp)
		if err != nil {
			continue
		}
		for _, f := range fs {
			if !slices.Contains(out, string(f.Kind)) {
				out = append(out, string(f.Kind))
			}
		}
	}
	if out == nil {
		return []string{"invalid"}
	}
	return out
}
