package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdReport is `conform report merge DIR...`: it reads the report.json of
// each shard's report directory and writes the merged reports (JUnit,
// JSON, Markdown, HTML) as one unsharded run would have.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform report merge", "DIR...", "Merge the reports of the shards of one sharded run (`conform run --shard i/n\n"+
		"--report-dir DIR` in parallel jobs) into one set: junit.xml, report.json, summary.md and\n"+
		"report.html, as the unsharded run would have written them (timings aside).")
	c.Notes = `Every shard 1..n must be given once, written by the same metis with the same filters.`
	out := c.String("report-dir", "reports", "`DIR` to write the merged reports to")
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			c.PrintUsage(stdout)
			return exitOK
		}
		if len(args) == 0 {
			return c.Fail(stderr, "want a subcommand: merge")
		}
		return c.Fail(stderr, fmt.Sprintf("unknown subcommand %q (want merge)", args[0]))
	}
	if code, ok := c.Parse(args[1:], stdout, stderr); !ok {
		return code
	}
	if c.NArg() == 0 {
		return c.Fail(stderr, "want the report directories of the shards")
	}
	var reps []*report.Report
	for _, dir := range c.Args() {
		rep, err := report.ReadReport(filepath.Join(dir, report.ReportJSON))
		if err != nil {
			fmt.Fprintln(stderr, "conform report merge:", err)
			return exitUsage
		}
		reps = append(reps, rep)
	}
	res, err := report.MergeReports(reps, c.Args())
	if err != nil {
		fmt.Fprintln(stderr, "conform report merge:", err)
		return exitUsage
	}
	p, f, s := res.Counts()
	fmt.Fprintf(stdout, "merged %d shards: %d passed, %d failed, %d skipped\n", len(reps), p, f, s)
	if !writeReports(stdout, stderr, res, *out, true) {
		return exitUsage
	}
	if res.Failed() {
		return exitFailed
	}
	return exitOK
}
