package report

import (
	"slices"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/scenario"
)

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
func NewFaultMatrix(runs []harness.ScenarioResult) FaultMatrix {
	m := FaultMatrix{Columns: []string{}, Cells: []FaultCell{}}
	for _, k := range faults.Kinds() {
		m.Kinds = append(m.Kinds, string(k))
	}
	type key struct {
		kind, column string
		streamed     bool
	}
	outcomes := map[key][]harness.Status{}
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
	defaults, _ := scenario.DefaultColumns()
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
func worst(ss []harness.Status) harness.Status {
	for _, s := range []harness.Status{harness.StatusFail, harness.StatusKnownFailure, harness.StatusPass} {
		if slices.Contains(ss, s) {
			return s
		}
	}
	return harness.StatusSkip
}
