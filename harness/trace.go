package harness

import (
	"errors"
	"fmt"
	"slices"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

// TraceRow is one specified case with the scenario runs that assert it.
type TraceRow struct {
	Case scenario.SpecCase `json:"case"`
	// Columns are the columns the case applies to.
	Columns []string `json:"columns"`
	// Runs are the runs of the scenarios that name the case.
	Runs []TraceRun `json:"runs"`
	// Missing are the columns no run covers: the gap.
	Missing []string `json:"missing,omitempty"`
}

// TraceRun is one scenario × model run asserting a case.
type TraceRun struct {
	Scenario string `json:"scenario"`
	Model    string `json:"model"`
	Column   string `json:"column,omitempty"`
	// Known is set when the run is a known failure.
	Known bool `json:"known_failure,omitempty"`
}

// Gap reports whether the row's case lacks a scenario on a column it
// applies to.
func (r TraceRow) Gap() bool {
	return len(r.Missing) > 0
}

// Trace maps every case of sp to the scenario runs that assert it: the
// runs (after the matrix is computed, without those a model's
// capabilities skip) of scenarios naming the case in spec:. A case that
// applies to columns and is neither enforced on every run nor asserted
// elsewhere has a gap on each such column no run covers.
func Trace(scs []*scenario.Scenario, sp *scenario.Spec, cfg Config) ([]TraceRow, error) {
	reg, err := cfg.registry()
	if err != nil {
		return nil, err
	}
	cfg.Registry = reg
	exp, err := cfg.expand(scs)
	if err != nil {
		return nil, err
	}
	caps := capsCache{cfg: &cfg, reg: reg, got: map[string]canonical.Capabilities{}}
	runs := func(sc *scenario.Scenario) ([]TraceRun, error) {
		var out []TraceRun
		for _, m := range sc.Models {
			cp, err := caps.of(m)
			if err != nil {
				return nil, err
			}
			if !meets(cp, sc.Requires, sc.Lacks) {
				continue
			}
			out = append(out, TraceRun{Scenario: sc.ID, Model: m, Column: cfg.columnOf(m), Known: cfg.knownFailure(sc, m) != nil})
		}
		return out, nil
	}
	var rows []TraceRow
	var errs []error
	for _, c := range sp.Cases {
		row := TraceRow{Case: c, Runs: []TraceRun{}}
		for _, col := range cfg.columns() {
			if !slices.ContainsFunc(c.AppliesTo, func(sel string) bool { return sel == "all" || col.SelectedBy(sel) }) {
				continue
			}
			cp, err := caps.of(col.Model)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if meets(cp, c.Requires, c.Lacks) {
				row.Columns = append(row.Columns, col.Name)
			}
		}
		for _, sc := range exp {
			if !slices.Contains(sc.Spec, c.ID) {
				continue
			}
			rs, err := runs(sc)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", sc.File, err))
				continue
			}
			row.Runs = append(row.Runs, rs...)
		}
		if c.EveryRun == "" && c.Elsewhere == "" {
			for _, col := range row.Columns {
				if !slices.ContainsFunc(row.Runs, func(r TraceRun) bool { return r.Column == col }) {
					row.Missing = append(row.Missing, col)
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, errors.Join(errs...)
}

// meets reports whether caps declares every capability of requires and
// none of lacks.
func meets(caps canonical.Capabilities, requires, lacks []string) bool {
	for _, n := range requires {
		if has, _ := scenario.Has(caps, n); !has {
			return false
		}
	}
	for _, n := range lacks {
		if has, _ := scenario.Has(caps, n); has {
			return false
		}
	}
	return true
}
