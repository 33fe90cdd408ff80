package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdList is `conform list`: one line per selected scenario × model, or
// with --trace the specified test cases and the runs asserting each.
func cmdList(args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform list", "[ID-GLOB...]", "List the scenario × model runs the filters select, as `conform run` would run them:\n"+
		"one line per run, with the scenario id, the model and the tags, tab-separated.\n"+
		"With --trace, list every test case the specification names (scenarios/spec-cases.yaml)\n"+
		"with the scenarios that assert it and the columns they run on; exit 1 when a case has a gap.\n"+
		"With --known-failures, list only the runs marked known_failures, with the symptom each names.")
	var sel selection
	sel.register(c.FlagSet)
	trace := c.FlagSet.Bool("trace", false, "print every specified test case with the scenarios and columns asserting it; exit 1 on a gap")
	known := c.FlagSet.Bool("known-failures", false, "list only the runs a scenario marks as known failures, with their symptom")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	cfg, err := sel.config(c.Args())
	if err != nil {
		return c.Fail(stderr, err.Error())
	}
	if *trace {
		scs, err := scenario.LoadDir(cfg.ScenarioDir)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		return printTrace(stdout, stderr, scs, cfg)
	}
	scs, ok := sel.load(c.Name, cfg, stderr)
	if !ok {
		return exitUsage
	}
	for _, p := range harness.Select(scs, cfg) {
		if *known {
			if kf := cfg.KnownFailureOf(p.Scenario, p.Model); kf != nil {
				fmt.Fprintf(stdout, "%s\t%s\t%s\n", p.Scenario.ID, p.Model, strings.Join(strings.Fields(kf.Symptom), " "))
			}
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", p.Scenario.ID, p.Model, strings.Join(p.Scenario.Tags, ","))
	}
	return exitOK
}

// printTrace writes the traceability matrix: per case, its id and title,
// the scenarios asserting it with the columns each runs on, and the
// columns it applies to that no scenario covers.
func printTrace(stdout, stderr io.Writer, scs []*scenario.Scenario, cfg harness.Config) int {
	sp, err := scenario.DefaultSpec()
	if err != nil {
		fmt.Fprintln(stderr, "conform list:", err)
		return exitUsage
	}
	rows, err := harness.Trace(scs, sp, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "conform list:", err)
		return exitUsage
	}
	gaps := 0
	for _, row := range rows {
		fmt.Fprintf(stdout, "%s — %s\n", row.Case.ID, row.Case.Title)
		switch {
		case row.Case.Elsewhere != "":
			fmt.Fprintf(stdout, "    not a scenario's: %s\n", row.Case.Elsewhere)
		case row.Case.EveryRun != "":
			fmt.Fprintf(stdout, "    every run: %s\n", row.Case.EveryRun)
		default:
			fmt.Fprintf(stdout, "    applies to: %s\n", strings.Join(row.Columns, " "))
		}
		for _, line := range traceLines(row.Runs) {
			fmt.Fprintln(stdout, "    "+line)
		}
		if row.Gap() {
			gaps++
			fmt.Fprintf(stdout, "    GAP: no scenario on %s\n", strings.Join(row.Missing, " "))
		}
	}
	fmt.Fprintf(stdout, "\n%d test cases, %d with a gap\n", len(rows), gaps)
	if gaps > 0 {
		return exitFailed
	}
	return exitOK
}

// traceLines groups runs by scenario: "tools/x: anthropic openai-chat …".
func traceLines(runs []harness.TraceRun) []string {
	var order []string
	cols := map[string][]string{}
	for _, r := range runs {
		if _, ok := cols[r.Scenario]; !ok {
			order = append(order, r.Scenario)
		}
		name := r.Column
		if name == "" {
			name = r.Model
		}
		if r.Known {
			name += "(known failure)"
		}
		cols[r.Scenario] = append(cols[r.Scenario], name)
	}
	out := make([]string, len(order))
	for i, id := range order {
		out[i] = id + ": " + strings.Join(cols[id], " ")
	}
	return out
}
