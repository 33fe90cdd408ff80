package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/harness"
)

// cmdRun is `conform run`: it prints one quiet line per run, then every
// failure with its findings and diffs, then "N passed, N failed, N
// skipped", and writes the reports.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("conform run", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		sel       selection
		parallel  int
		update    bool
		reportDir string
		verbose   bool
	)
	sel.register(fs)
	fs.IntVarP(&parallel, "parallel", "p", 1, "how many scenario runs go at once")
	fs.BoolVar(&update, "update", false, "rewrite the golden files that differ")
	fs.StringVar(&reportDir, "report-dir", "reports", "where to write junit.xml, report.json and summary.md (empty: none)")
	fs.BoolVarP(&verbose, "verbose", "v", false, "print every step's checks, not only failures")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conform run [flags] [ID-GLOB...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	cfg, err := sel.config(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return exitUsage
	}
	cfg.Parallel = parallel
	cfg.UpdateGoldens = update

	res, err := harness.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printResult(stdout, res, verbose)
	if reportDir != "" {
		if err := harness.WriteReports(reportDir, res); err != nil {
			fmt.Fprintln(stderr, "conform: writing reports:", err)
			return exitUsage
		}
	}
	if res.Failed() {
		return exitFailed
	}
	return exitOK
}

// printResult writes the quiet per-run lines, the failure details and the
// closing counts line.
func printResult(w io.Writer, res *harness.Result, verbose bool) {
	for _, r := range res.Runs {
		line := fmt.Sprintf("%-4s %s", mark(r.Status), r.Name())
		if r.Status == harness.StatusSkip {
			line += ": " + firstLine(r.Reason)
		}
		fmt.Fprintln(w, line)
	}
	for _, r := range res.Runs {
		if r.Status != harness.StatusFail && !verbose {
			continue
		}
		fmt.Fprintf(w, "\n--- %s %s (%s)\n", mark(r.Status), r.Name(), r.File)
		if r.Reason != "" && len(r.Findings) == 0 {
			fmt.Fprintln(w, r.Reason)
		}
		for _, st := range r.Steps {
			for _, c := range st.Checks {
				if !c.OK || verbose {
					fmt.Fprintf(w, "  step %d (%s) %s: %s %s\n", st.Index+1, st.Kind, okWord(c.OK), c.Name, c.Message)
				}
			}
			if st.Error != "" {
				fmt.Fprintf(w, "  step %d (%s) error: %s\n", st.Index+1, st.Kind, st.Error)
			}
		}
		for _, f := range r.Findings {
			fmt.Fprintln(w, "  "+f.String())
		}
	}
	p, f, s := res.Counts()
	fmt.Fprintln(w)
	if line := res.SourceSummary(); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", p, f, s)
}

func mark(s harness.Status) string {
	switch s {
	case harness.StatusPass:
		return "ok"
	case harness.StatusFail:
		return "FAIL"
	}
	return "skip"
}

func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAILED"
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
