package harness

import (
	"maps"
	"slices"

	"github.com/metis-llm/metis/harness/faults"
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
func faultUses(cfg *Config, sc *Scenario, res *ScenarioResult) []FaultUse {
	column := cfg.columnOf(res.Model)
	if column == "" {
		column = res.Model
	}
	var out []FaultUse
	for i, st := range sc.Steps {
		if st.Kind != StepInject {
			continue
		}
		j := i + 1
		for j < len(sc.Steps) && sc.Steps[j].Kind != StepCall && sc.Steps[j].Kind != StepInject {
			j++
		}
		if j == len(sc.Steps) || sc.Steps[j].Kind != StepCall {
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

// FaultMatrix is report.json's fault_matrix: for every fault kind × every
// column that ran a fault, whether calls carrying that fault passed,
// streamed and non-streamed. Kinds lists every kind faults knows, columns
// those of the runs, in order of appearance.
type FaultMatrix struct {
	Kinds   []string    `json:"kinds"`
	Columns []string    `json:"columns"`
	Cells   []FaultCell `json:"cells"`
	// Covered counts the cells (kind × column × streamed or not, where
	// the kind applies) with at least one call; Total those where it
	// applies.
	Covered int `json:"covered"`
	Total   int `json:"total"`
}

// FaultCell is one kind × column of a FaultMatrix. Each of Streamed and
// NonStreamed is pass, fail, known_failure, skip (no call ran), missing
// (no scenario covers it) or n/a (the kind needs a stream); Runs names
// the runs that cover it.
type FaultCell struct {
	Kind        string   `json:"kind"`
	Column      string   `json:"column"`
	Streamed    string   `json:"streamed"`
	NonStreamed string   `json:"non_streamed"`
	Runs        []string `json:"runs,omitempty"`
}

// Cell outcomes besides the Status values.
const (
	CellMissing       = "missing"
	CellNotApplicable = "n/a"
)

// NewFaultMatrix builds the fault matrix of runs.
func NewFaultMatrix(runs []ScenarioResult) FaultMatrix {
	m := FaultMatrix{Columns: []string{}, Cells: []FaultCell{}}
	for _, k := range faults.Kinds() {
		m.Kinds = append(m.Kinds, string(k))
	}
	type key struct {
		kind, column string
		streamed     bool
	}
	outcomes := map[key][]Status{}
	runsOf := map[[2]string][]string{}
	for _, r := range runs {
		for _, u := range r.Faults {
			if !slices.Contains(m.Columns, u.Column) {
				m.Columns = append(m.Columns, u.Column)
			}
			for _, k := range u.Kinds {
				if !slices.Contains(m.Kinds, k) {
					m.Kinds = append(m.Kinds, k)
				}
				kk := key{k, u.Column, u.Streamed}
				outcomes[kk] = append(outcomes[kk], u.Status)
				rk := [2]string{k, u.Column}
				if name := r.Name(); !slices.Contains(runsOf[rk], name) {
					runsOf[rk] = append(runsOf[rk], name)
				}
			}
		}
	}
	m.Columns = orderColumns(m.Columns)
	for _, k := range m.Kinds {
		for _, col := range m.Columns {
			c := FaultCell{Kind: k, Column: col, Runs: runsOf[[2]string{k, col}]}
			for _, streamed := range []bool{true, false} {
				out := CellMissing
				switch {
				case len(outcomes[key{k, col, streamed}]) > 0:
					out = string(worst(outcomes[key{k, col, streamed}]))
				case !streamed && faults.NeedsStream(faults.Kind(k)):
					out = CellNotApplicable
				}
				if out != CellNotApplicable {
					m.Total++
					if out != CellMissing {
						m.Covered++
					}
				}
				if streamed {
					c.Streamed = out
				} else {
					c.NonStreamed = out
				}
			}
			m.Cells = append(m.Cells, c)
		}
	}
	return m
}

// orderColumns puts the default columns (scenarios/columns.yaml) first,
// in their order, then any other column in order of appearance.
func orderColumns(cols []string) []string {
	defaults, _ := DefaultColumns()
	rank := func(c string) int {
		for i, d := range defaults {
			if d.Name == c {
				return i
			}
		}
		return len(defaults)
	}
	slices.SortStableFunc(cols, func(a, b string) int { return rank(a) - rank(b) })
	return cols
}

// worst is the outcome of a cell from its calls': any failure fails it,
// then a known failure, then pass; skip only when nothing ran.
func worst(ss []Status) Status {
	for _, s := range []Status{StatusFail, StatusKnownFailure, StatusPass} {
		if slices.Contains(ss, s) {
			return s
		}
	}
	return StatusSkip
}
