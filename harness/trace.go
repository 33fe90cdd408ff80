package harness

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/scenarios"
)

// Spec is the list of test cases the specification names, and the
// sections a scenario's spec: may refer to (scenarios/spec-cases.yaml).
type Spec struct {
	Seeds map[string]SpecSeed `yaml:"seeds"`
	Cases []SpecCase          `yaml:"cases"`
}

// SpecSeed is one seed document: its numbered sections, or for an
// unnumbered one its headings.
type SpecSeed struct {
	Title    string   `yaml:"title"`
	Sections []string `yaml:"sections"`
	Headings []string `yaml:"headings"`
}

// SpecCase is one test case the specification names.
type SpecCase struct {
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title" json:"title"`
	// AppliesTo selects the columns (names, tags or "all") the case
	// concerns; empty means no column: no scenario can assert it.
	AppliesTo []string `yaml:"applies_to" json:"applies_to"`
	// Requires and Lacks narrow AppliesTo by declared capability.
	Requires []string `yaml:"requires" json:"requires,omitempty"`
	Lacks    []string `yaml:"lacks" json:"lacks,omitempty"`
	// EveryRun says how the harness enforces the case on every run.
	EveryRun string `yaml:"every_run" json:"every_run,omitempty"`
	// Elsewhere names the Go test asserting a case no scenario can.
	Elsewhere string `yaml:"elsewhere" json:"elsewhere,omitempty"`
}

var refPattern = regexp.MustCompile(`^([0-9]{3}) (.+)$`)

// ParseSpec reads a spec-cases file; file names it in errors.
func ParseSpec(file string, data []byte) (*Spec, error) {
	var sp Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sp); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	seen := map[string]bool{}
	for i, c := range sp.Cases {
		where := fmt.Sprintf("%s: cases[%d]", file, i)
		m := refPattern.FindStringSubmatch(c.ID)
		switch {
		case m == nil:
			return nil, fmt.Errorf("%s: id %q is not \"<seed> <reference>\"", where, c.ID)
		case seen[c.ID]:
			return nil, fmt.Errorf("%s: id %q is used twice", where, c.ID)
		case c.Title == "":
			return nil, fmt.Errorf("%s (%s): no title", where, c.ID)
		case c.Elsewhere != "" && len(c.AppliesTo) > 0:
			return nil, fmt.Errorf("%s (%s): a case asserted elsewhere applies to no column", where, c.ID)
		case c.Elsewhere == "" && len(c.AppliesTo) == 0:
			return nil, fmt.Errorf("%s (%s): applies_to is empty: say which columns, or where the case is asserted (elsewhere)", where, c.ID)
		}
		if _, ok := sp.Seeds[m[1]]; !ok {
			return nil, fmt.Errorf("%s (%s): seed %s is not listed under seeds", where, c.ID, m[1])
		}
		seen[c.ID] = true
	}
	return &sp, nil
}

var (
	defaultSpecOnce sync.Once
	defaultSpec     *Spec
	defaultSpecErr  error
)

// DefaultSpec returns scenarios/spec-cases.yaml.
func DefaultSpec() (*Spec, error) {
	defaultSpecOnce.Do(func() {
		defaultSpec, defaultSpecErr = ParseSpec("scenarios/spec-cases.yaml", scenarios.SpecCases)
	})
	return defaultSpec, defaultSpecErr
}

// Case returns the case with id ref, or nil.
func (sp *Spec) Case(ref string) *SpecCase {
	for i := range sp.Cases {
		if sp.Cases[i].ID == ref {
			return &sp.Cases[i]
		}
	}
	return nil
}

// CheckRef reports whether ref names a case, or a section (or, for an
// unnumbered seed, a heading) of a listed seed: "000 §5.2.1",
// "003 §10.2 Simple chat", "001 §8.3", "002 Native APIs".
func (sp *Spec) CheckRef(ref string) error {
	if sp.Case(ref) != nil {
		return nil
	}
	m := refPattern.FindStringSubmatch(ref)
	if m == nil {
		return fmt.Errorf("%q is not a reference such as \"000 §5.2.1\" or \"004 001-basic-completion\"", ref)
	}
	seed, ok := sp.Seeds[m[1]]
	if !ok {
		return fmt.Errorf("%q: there is no seed %s", ref, m[1])
	}
	rest := m[2]
	if sec, ok := strings.CutPrefix(rest, "§"); ok {
		if slices.Contains(seed.Sections, sec) {
			return nil
		}
		return fmt.Errorf("%q: seed %s has no section §%s and no such test case", ref, m[1], sec)
	}
	if slices.Contains(seed.Headings, rest) {
		return nil
	}
	return fmt.Errorf("%q names no test case, section or heading of seed %s", ref, m[1])
}

// TraceRow is one specified case with the scenario runs that assert it.
type TraceRow struct {
	Case SpecCase `json:"case"`
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
func Trace(scs []*Scenario, sp *Spec, cfg Config) ([]TraceRow, error) {
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
	runs := func(sc *Scenario) ([]TraceRun, error) {
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
			if !slices.ContainsFunc(c.AppliesTo, func(sel string) bool { return sel == "all" || col.selectedBy(sel) }) {
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
		if has, _ := Has(caps, n); !has {
			return false
		}
	}
	for _, n := range lacks {
		if has, _ := Has(caps, n); has {
			return false
		}
	}
	return true
}
