package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/internal/buildinfo"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdRun is `conform run`: it prints a line per failed run (the
// scenario's file:line of the failing step and the first failing check,
// a golden diff with the --update command that accepts it), then "N
// passed, N failed, N skipped"; -v prints a line per run and every check
// of every run too. Then it writes the reports and says where they went.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform run", "[ID-GLOB...]", "Replay every scenario × model the filters select against the cassettes, check the\n"+
		"stream invariants, the expectations and the goldens, and write the reports.")
	c.Notes = `An ID-GLOB keeps scenarios whose id matches it ('tools/*') or starts with it (tools/).
Reports go to --report-dir (default reports/). A filtered run (ID-GLOB, --model, --tag,
--skip, --shard, or --oracle other than all) without --report-dir writes to
reports/filtered/ instead, so the full suite's reports are never overwritten by
part of the suite.
Exit status: 0 all passed, 1 a run failed, 2 a usage or configuration error
(including a filter that selects nothing).`
	var (
		sel       selection
		parallel  int
		update    bool
		reportDir string
		verbose   bool // -v
		mode      string
		timeout   time.Duration
		oracle    string
		failFast  bool
	)
	sel.register(c.FlagSet)
	// Runs spend most of their time waiting (stall faults wait for their
	// timeouts, replay paces nothing), so several at once keep the suite
	// fast on two cores.
	c.IntVarP(&parallel, "parallel", "p", 8, "run `N` scenarios at once")
	c.BoolVar(&update, "update", false, "rewrite the golden files that differ")
	c.BoolVar(&failFast, "fail-fast", false, "stop at the first failed run: start no more runs, cancel those in flight, exit 1;\n"+
		"the counts and reports cover the runs that ended before the stop")
	c.StringVar(&reportDir, "report-dir", "reports", "`DIR` to write junit.xml, report.json, summary.md and report.html to (empty: none)")
	c.BoolVarP(&verbose, "verbose", "v", false, "print a line per run and every step's checks, not only a line per failure")
	c.DurationVar(&timeout, "run-timeout", harness.DefaultRunTimeout, "`DURATION` bounding each scenario run in wall time; a scenario's run_timeout wins")
	c.StringVar(&oracle, "oracle", string(scenario.OracleAll), "`ORACLE` whose checks run: all; contract, what any adapter must do (a certificate's checks);\n"+
		"regression, metis's own choices (chunking, backoff, texts, request bytes); see docs/oracles.md")
	c.StringVar(&mode, "record", recordNone, "`MODE` none: replay only; missing: first record absent cassettes against the built-in\n"+
		"emulator and write absent goldens (a new scenario green in one command)")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	cfg, err := sel.config(c.Args())
	if err != nil {
		return c.Fail(stderr, err.Error())
	}
	if !slices.Contains(recordModes, mode) {
		return c.Fail(stderr, fmt.Sprintf("--record %q: want one of %s", mode, strings.Join(recordModes, ", ")))
	}
	if timeout <= 0 {
		return c.Fail(stderr, fmt.Sprintf("--run-timeout %s: want a positive duration such as 30s", timeout))
	}
	if !slices.Contains(scenario.RunOracles, scenario.Oracle(oracle)) {
		return c.Fail(stderr, fmt.Sprintf("--oracle %q: want one of %s", oracle, joinOracles(scenario.RunOracles)))
	}
	if oracle != string(scenario.OracleAll) && (update || mode != recordNone) {
		// Under the contract alone the transcript is compared projected,
		// and one oracle alone checks part of what a golden stands for.
		return c.Fail(stderr, fmt.Sprintf("--oracle %s: --update and --record write goldens, which only --oracle all checks whole", oracle))
	}
	cfg.Oracle = scenario.Oracle(oracle)
	cfg.Parallel = parallel
	cfg.FailFast = failFast
	cfg.UpdateGoldens = update
	cfg.RunTimeout = timeout
	go readyTokenizers(sel.models)
	// The report's revision: in a checkout of a build without a VCS stamp
	// (-buildvcs=false) it runs git rev-parse and git status, a fifth of a
	// second that harness.Run would otherwise wait for before its first
	// run; asked now, it overlaps the scenarios' loading.
	go buildinfo.Read()
	scs, ok := sel.load(c.Name, cfg, stderr)
	if !ok {
		return exitUsage
	}
	cfg.Scenarios = scs
	var goldens *newGoldens
	if mode == recordMissing {
		if !recordMissingCassettes(ctx, cfg, stdout) {
			fmt.Fprintln(stdout, "recording failed for the runs above; they fail below too")
		}
		goldens = &newGoldens{update: update}
		cfg.Golden = goldens.compare
	}

	prog := newProgress(stdout)
	if prog != nil {
		cfg.Progress = prog.update
	}
	res, err := harness.Run(ctx, cfg)
	if prog != nil {
		prog.clear()
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if goldens != nil {
		if err := goldens.write(cfg, res, stdout); err != nil {
			fmt.Fprintln(stderr, "conform run: writing goldens:", err)
			return exitUsage
		}
	}
	d := detailCompact
	if verbose {
		d = detailAll
		printRunLines(stdout, res.Runs)
	}
	dirs := sel.dirFlags()
	if cfg.Oracle != scenario.OracleAll {
		dirs += " --oracle " + oracle
	}
	printResult(stdout, res, d, dirs)
	if res.NotRun > 0 {
		fmt.Fprintf(stdout, "--fail-fast: stopped at the first failed run; %d of %d selected runs not run\n", res.NotRun, res.NotRun+len(res.Runs))
	}
	if len(res.Runs) == 0 && res.Selection.Shard != nil {
		fmt.Fprintf(stdout, "shard %s holds no run: the selection has fewer runs than shards\n", res.Selection.Shard)
	}
	if !writeReports(stdout, stderr, res, reportDir, c.Changed("report-dir")) {
		return exitUsage
	}
	if res.Failed() {
		return exitFailed
	}
	return exitOK
}

// joinOracles lists oracles as "a, b, c".
func joinOracles(os []scenario.Oracle) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

// writeReports writes res's reports and prints where they went. A filtered
// run writes under <dir>/filtered unless the directory was chosen
// explicitly, and says so.
func writeReports(stdout, stderr io.Writer, res *harness.Result, dir string, explicit bool) bool {
	if dir == "" {
		fmt.Fprintln(stdout, "reports: none written (--report-dir is empty)")
		return true
	}
	if res.Selection.Filtered() && !explicit {
		full := dir
		dir = filepath.Join(dir, "filtered")
		fmt.Fprintf(stdout, "filtered run (%s): reports go to %s, not %s, which keeps the full suite's; --report-dir chooses\n",
			res.Selection, dir+string(filepath.Separator), full+string(filepath.Separator))
	}
	if err := report.WriteReports(dir, res); err != nil {
		fmt.Fprintln(stderr, "conform: writing reports:", err)
		return false
	}
	paths := make([]string, len(report.ReportFiles))
	for i, name := range report.ReportFiles {
		paths[i] = filepath.Join(dir, name)
	}
	fmt.Fprintf(stdout, "reports: %s\n", strings.Join(paths, " "))
	return true
}

// detail says how much printResult prints.
type detail int

const (
	// detailCompact is a line per failure (its scenario file:line and first
	// failing check, a golden diff with the command that accepts it), the
	// known failures and the counts.
	detailCompact detail = iota
	// detailRuns is conform certify's: the caller printed a line per run
	// (as each ended), so the failures come again after a blank line,
	// without conform run's re-run hint.
	detailRuns
	// detailAll adds every check, error and finding of every run.
	detailAll
)

// diffLines caps the lines of a golden diff printed in compact output;
// the reports and -v have all of them.
const diffLines = 30

// runLine is a run's line, as conform run -v and conform certify print
// it: its mark and name ("ok   basic/plain-text [anthropic:...]"), and
// a skip's reason.
func runLine(r *harness.ScenarioResult) string {
	line := fmt.Sprintf("%-4s %s", mark(r.Status), r.Name())
	if r.Status == harness.StatusSkip {
		line += ": " + firstLine(r.Reason)
	}
	return line
}

// printRunLines writes a line per run (runLine).
func printRunLines(w io.Writer, runs []harness.ScenarioResult) {
	for i := range runs {
		fmt.Fprintln(w, runLine(&runs[i]))
	}
}

// printResult writes res: every check of every run at detailAll, each
// failure, the known failures, and the closing counts line. The lines
// per run are the caller's (printRunLines, or as each run ends).
// dirs are the flags naming the suite's directories when they are not
// the defaults, added to the commands it suggests.
func printResult(w io.Writer, res *harness.Result, d detail, dirs string) {
	var failed []*harness.ScenarioResult
	for i := range res.Runs {
		if res.Runs[i].Status == harness.StatusFail {
			failed = append(failed, &res.Runs[i])
		}
	}
	if d == detailAll {
		for i := range res.Runs {
			printDetails(w, &res.Runs[i], dirs)
		}
	}
	if len(failed) > 0 {
		// The failures again, last, where the terminal shows them.
		if d >= detailRuns {
			fmt.Fprintln(w)
		}
		for _, r := range failed {
			printFailure(w, r, dirs)
		}
		if d == detailCompact { // conform run's: certify's runs are not conform run's
			fmt.Fprintf(w, "all of a run's checks: %s%s -v\n", report.Focus(failed[0]).Rerun, dirs)
		}
	}
	p, f, s := res.Counts()
	known := res.KnownFailures()
	if len(known) > 0 {
		fmt.Fprintf(w, "\nknown failures (adapter bugs each scenario's known_failures names; they do not fail the run):\n")
		for _, r := range known {
			fmt.Fprintf(w, "  %s: %s\n", r.Name(), firstLine(r.Reason))
		}
	}
	if d >= detailRuns || len(failed) > 0 || len(known) > 0 {
		fmt.Fprintln(w)
	}
	if line := res.SourceSummary(); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped", p, f, s)
	if len(known) > 0 {
		fmt.Fprintf(w, ", %d known failures", len(known))
	}
	fmt.Fprintln(w)
}

// printFailure writes a failed run in a line: FAIL, its name, the
// scenario's file:line of the failing step and the first failing check;
// then a golden diff, capped at diffLines, and the command that accepts
// it.
func printFailure(w io.Writer, r *harness.ScenarioResult, dirs string) {
	f := report.Focus(r)
	line := "FAIL " + r.Name()
	if f.Where != "" {
		line += " " + f.Where + ":"
	}
	fmt.Fprintln(w, line+" "+f.Check)
	if f.Diff == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(f.Diff, "\n"), "\n")
	for i, l := range lines {
		if i == diffLines {
			fmt.Fprintf(w, "     … %d more lines (-v, or the reports)\n", len(lines)-i)
			break
		}
		fmt.Fprintln(w, "     "+l)
	}
	fmt.Fprintf(w, "     accept the new golden: %s%s\n", f.Update, dirs)
}

// printDetails writes every check, error and finding of a run (-v),
// with where it failed and the commands for a failure.
func printDetails(w io.Writer, r *harness.ScenarioResult, dirs string) {
	fmt.Fprintf(w, "\n--- %s %s (%s)\n", mark(r.Status), r.Name(), r.File)
	if r.Reason != "" && len(r.Findings) == 0 {
		fmt.Fprintln(w, r.Reason)
	}
	for _, st := range r.Steps {
		for _, c := range st.Checks {
			fmt.Fprintf(w, "  step %d (%s) %s: %s %s\n", st.Index+1, st.Kind, okWord(c.OK), c.Name, c.Message)
		}
		if st.Error != "" {
			fmt.Fprintf(w, "  step %d (%s) error: %s\n", st.Index+1, st.Kind, st.Error)
		}
	}
	for _, f := range r.Findings {
		fmt.Fprintln(w, "  "+f.String())
	}
	if r.Status != harness.StatusFail && r.Status != harness.StatusKnownFailure {
		return
	}
	f := report.Focus(r)
	if f.Where != "" {
		fmt.Fprintf(w, "  failed at %s: %s\n", f.Where, f.Check)
	}
	fmt.Fprintf(w, "  re-run: %s%s\n", f.Rerun, dirs)
	if f.Update != "" {
		fmt.Fprintf(w, "  accept the new golden: %s%s\n", f.Update, dirs)
	}
}

func mark(s harness.Status) string {
	switch s {
	case harness.StatusPass:
		return "ok"
	case harness.StatusFail:
		return "FAIL"
	case harness.StatusKnownFailure:
		return "xfail"
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

// readyTokenizers loads the OpenAI tokenizer tables the runs will use
// (the first streamed call of an OpenAI model loads them otherwise, some
// tens of milliseconds of CPU that every other such run waits for) while
// the scenarios load on the other core: for the models of a --model
// filter, or for OpenAI's current encoding when there is none. Models
// without an OpenAI tokenizer load nothing.
func readyTokenizers(models []string) {
	if len(models) == 0 {
		models = []string{"openai:gpt-5"}
	}
	for _, m := range models {
		openai.Tokenizer(m)
	}
}
