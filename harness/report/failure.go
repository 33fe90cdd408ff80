package report

import (
	"fmt"
	"strings"

	"github.com/metis-llm/metis/harness"
)

// ConformCommand is how the reports and the CLI spell the command that
// runs the suite from the module's root, in the commands they suggest.
const ConformCommand = "go run ./cmd/conform"

// FailureFocus is what a report puts first about a failed run: the first
// thing that failed, where in the scenario, the golden diff if one
// differs, and the commands that re-run it and accept a new golden.
type FailureFocus struct {
	// Check is the first failed check or error ("step 2 (call)
	// stop_reason: stop_reason max_tokens, want end_turn"), else the
	// first error finding ("golden/transcript.json: differs ..."), else
	// the run's reason.
	Check string
	// Where is the scenario's file:line of the step that failed: the step
	// of Check, or the scenario's id line for a run-wide finding (a golden
	// diff). Empty when the run has no file.
	Where string
	// Diff is the first golden difference (-want +got), "" when none.
	Diff string
	// Rerun runs this scenario on this column alone:
	// `go run ./cmd/conform run ID --model MODEL`.
	Rerun string
	// Update is Rerun with --update when a golden differs: it accepts the
	// new golden. "" when no golden differs.
	Update string
}

// Focus returns what a report shows first about r, a failed (or known
// failure) run.
func Focus(r *harness.ScenarioResult) FailureFocus {
	f := FailureFocus{Rerun: RerunCommand(r.ID, r.Model)}
	f.Check, f.Where = firstFailure(r)
	for _, fd := range r.Findings {
		if fd.Diff != "" && strings.HasPrefix(fd.ID, "golden/") {
			f.Diff = fd.Diff
			f.Update = f.Rerun + " --update"
			break
		}
	}
	return f
}

// RerunCommand is the command that runs scenario id on one column.
func RerunCommand(id, model string) string {
	return ConformCommand + " run " + quoteArg(id) + " --model " + quoteArg(model)
}

// firstFailure names the first thing that failed in a run and where: the
// first failed check or error of the first failed step (at that step),
// else the first error finding (at its step, or the scenario), else the
// run's reason (at the scenario).
func firstFailure(r *harness.ScenarioResult) (check, where string) {
	for _, st := range r.Steps {
		if st.Status != harness.StatusFail {
			continue
		}
		step := fmt.Sprintf("step %d (%s)", st.Index+1, st.Kind)
		for _, c := range st.Checks {
			if !c.OK {
				return step + " " + c.Name + ": " + c.Message, fileLine(st.Pos.File, st.Pos.Line)
			}
		}
		if st.Error != "" {
			return step + ": " + st.Error, fileLine(st.Pos.File, st.Pos.Line)
		}
	}
	scenario := fileLine(r.File, r.Line)
	for _, fd := range r.Findings {
		if fd.Level != harness.LevelError {
			continue
		}
		where := scenario
		if st := stepOf(r, fd.Step); st != nil {
			where = fileLine(st.Pos.File, st.Pos.Line)
		}
		return fd.ID + ": " + firstLine(fd.Message), where
	}
	return firstLine(r.Reason), scenario
}

// stepOf returns the result of the step with index i, nil when there is none.
func stepOf(r *harness.ScenarioResult, i int) *harness.StepResult {
	if i < 0 {
		return nil
	}
	for k := range r.Steps {
		if r.Steps[k].Index == i {
			return &r.Steps[k]
		}
	}
	return nil
}

// fileLine is "file:line", "file" without a line, "" without a file.
func fileLine(file string, line int) string {
	switch {
	case file == "":
		return ""
	case line > 0:
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// quoteArg quotes s for a POSIX shell when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, "*?[] '\"\\$") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
