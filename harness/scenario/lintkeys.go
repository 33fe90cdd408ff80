package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// Lint rules of the matrix keys, the reload and ready steps and the
// richer expectations.
const (
	LintColumn      = "unknown-column"
	LintSameAs      = "same-as"
	LintKnownFail   = "known-failure"
	LintReload      = "reload"
	LintDirect      = "direct-call"
	LintExpectModel = "per-model"
	LintSpecRef     = "spec-ref"
	LintOracle      = "oracle"
)

// structuredOutputTool is the tool adapters without a response format
// (Anthropic) declare and force for a call's output_schema; a reply may
// call it without the scenario defining it.
const structuredOutputTool = "structured_output"

// lintKeys checks the scenario-level matrix keys and what the steps'
// newer expectations need.
func (l *linter) lintKeys() {
	sc := l.sc
	if sp, err := DefaultSpec(); err == nil {
		for i, ref := range sc.Spec {
			if err := sp.CheckRef(ref); err != nil {
				l.errorf(fmt.Sprintf("/spec/%d", i), LintSpecRef, "%v (scenarios/spec-cases.yaml lists the cases and sections)", err)
			}
		}
	}
	if sc.Oracle == OracleRegression && strings.TrimSpace(sc.Description) == "" {
		l.errorf("/oracle", LintOracle, "oracle: regression needs a description saying which of metis's own choices the scenario checks")
	}
	if sc.Oracle == OracleRegression && len(sc.KnownFailures) > 0 {
		l.errorf("/known_failures", LintOracle, "known_failures mark adapter bugs against the contract; a scenario with oracle: regression checks metis's own choices, which it fixes rather than marks")
	}
	known := Capabilities()
	for i, c := range sc.Lacks {
		if !slices.Contains(known, c) {
			l.errorf(fmt.Sprintf("/lacks/%d", i), LintCapability, "unknown capability %q (want one of %s)", c, strings.Join(known, ", "))
		}
		if slices.Contains(sc.Requires, c) {
			l.errorf(fmt.Sprintf("/lacks/%d", i), LintCapability, "capability %q is both required and lacking", c)
		}
	}
	if len(sc.Models) > 0 && !sc.FromColumns {
		if len(sc.Columns) > 0 {
			l.errorf("/columns", LintColumn, "columns narrows a column-derived matrix, but this scenario names its models")
		}
		if len(sc.Lacks) > 0 {
			l.errorf("/lacks", LintColumn, "lacks selects columns, but this scenario names its models")
		}
		if sc.SameAs != "" && !slices.Contains(sc.Models, sc.SameAs) {
			l.errorf("/same_as", LintSameAs, "same_as %s is not one of the scenario's models", sc.SameAs)
		}
	}
	l.model("/same_as", sc.SameAs)
	for i, kf := range sc.KnownFailures {
		for j, m := range kf.Models {
			if !l.modelKey(m) {
				l.errorf(fmt.Sprintf("/known_failures/%d/models/%d", i, j), LintKnownFail, "%q is not a model of the registry, a column or a provider", m)
			}
		}
	}
	history := false
	for i := range sc.Steps {
		st := &sc.Steps[i]
		ptr := fmt.Sprintf("/steps/%d", i)
		switch st.Kind {
		case StepHistory:
			history = true
		case StepReload:
			if history {
				l.errorf(ptr, LintReload, "reload after a history step: the history step keeps the session in memory")
			}
		case StepCall:
			l.lintCall(ptr, st)
		case StepReady:
			if e := st.Expect; e != nil {
				if e.StopReason != "" || e.Blocks != nil || e.Attempts != nil || e.Events != nil || e.TextContains != nil ||
					e.TextMatches != nil || e.Refused || e.Status != "" || e.Usage != nil || e.Cost != nil || e.Fragments != "" {
					l.errorf(ptr+"/expect", LintExpectMisplaced, "a ready step's expect takes only error, request, logs and waits")
				}
			}
		}
		if st.Expect != nil {
			l.lintExpectKeys(ptr+"/expect", st.Expect)
		}
		if st.Kind == StepSwap && st.Expect != nil && st.Expect.Reasons != nil && !st.Expect.Refused {
			l.errorf(ptr+"/expect/reasons", LintExpectMisplaced, "reasons belong to a refused swap: add refused: true")
		}
	}
}

// lintCall checks a call step's direct flag against its expectations.
func (l *linter) lintCall(ptr string, st *Step) {
	c, e := st.Call, st.Expect
	if c.Direct && c.Both {
		l.errorf(ptr+"/call/direct", LintDirect, "a direct call cannot also be both: true")
	}
	if e == nil {
		return
	}
	if c.Direct && (e.Status != "" || e.Cost != nil || e.SessionCost != "") {
		l.errorf(ptr+"/expect", LintDirect, "a direct call appends no message: status, cost and session_cost do not apply")
	}
	if e.Fragments != "" && !c.Streams() {
		l.errorf(ptr+"/expect/fragments", LintExpectMisplaced, "fragments are checked only on streaming calls; add stream: true")
	}
}

// lintExpectKeys checks per_model keys, recursively.
func (l *linter) lintExpectKeys(ptr string, e *Expect) {
	for k, sub := range e.PerModel {
		p := ptr + "/per_model/" + EscapePointer(k)
		if !l.modelKey(k) {
			l.errorf(p, LintExpectModel, "%q is not a model of the registry, a column or a provider", k)
		}
		l.lintExpectKeys(p, sub)
	}
	for k, sub := range e.PerRun {
		p := ptr + "/per_run/" + EscapePointer(k)
		if !l.modelKey(k) {
			l.errorf(p, LintExpectModel, "%q is not a model of the registry, a column or a provider", k)
		}
		l.lintExpectKeys(p, sub)
	}
	for k, sub := range e.PerWire {
		l.lintExpectKeys(ptr+"/per_wire/"+EscapePointer(k), sub)
	}
}

// modelKey reports whether k names a registry model, a column or a
// provider (known when no registry is given).
func (l *linter) modelKey(k string) bool {
	if l.reg == nil {
		return true
	}
	if _, err := l.reg.Resolve(k); err == nil {
		return true
	}
	cols, _ := DefaultColumns()
	for _, c := range cols {
		if c.Name == k {
			return true
		}
	}
	if slices.Contains(l.reg.Adapters(), k) {
		return true
	}
	return false
}

// LintColumns checks the columns: entries of scs against cols: each must
// name a column or one of the columns' tags.
func LintColumns(scs []*Scenario, cols []Column) Errors {
	var errs Errors
	for _, sc := range scs {
		for i, sel := range sc.Columns {
			if !slices.ContainsFunc(cols, func(c Column) bool { return c.SelectedBy(sel) }) {
				errs = append(errs, &Error{Pos: sc.Position(fmt.Sprintf("/columns/%d", i)), Rule: LintColumn,
					Msg: fmt.Sprintf("%q names no column and no column tag (columns: %s)", sel, columnNames(cols))})
			}
		}
	}
	return errs
}

func columnNames(cols []Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
