package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/google/shlex"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/internal/cli"
	"github.com/metis-llm/metis/protocol"
)

// defaultPace is the delay between replayed server-sent events for
// adapters reached over loopback.
const defaultPace = time.Millisecond

// cmdCertify is `conform certify`: the suite through one adapter — an
// adapter in any language as a child process (--exec), or metis's own —
// written as a results bundle.
func cmdCertify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform certify", "[ID-GLOB...]", "Certify an adapter: run every scenario of the suite that talks to --provider through it, with the\n"+
		"same checks and goldens as `conform run`, and write a results bundle that `conform verify` checks.\n"+
		"With --exec the adapter is a child process speaking the stdio protocol (protocol/v2/); without it,\n"+
		"metis's own adapter for the provider is certified.")
	c.Notes = `profiles: core, streaming, tools, thinking, errors, swap (see the certify package). Naming profiles
keeps only their runs and requires each to be certified.

exit status: 0 certified, 1 not certified (a run failed, or a required profile has no passing run),
2 usage or configuration error.

example:
  conform certify --provider anthropic --profile core,tools --out cert.tar.gz \
    --exec "python3 examples/python-adapter/adapter.py"`
	provider := c.String("provider", "", "registry `ADAPTER` whose wire format the adapter speaks (anthropic, openai, gemini, vllm, ...)")
	execCmd := c.String("exec", "", "the adapter's `COMMAND` line (quotes group words); it is started once per run")
	profileList := c.String("profile", "", "comma-separated `PROFILES` to certify (default: all)")
	out := c.String("out", "reports/certification", "the bundle to write: a directory, or a `PATH` ending in .tar.gz")
	timeout := c.Duration("timeout", 30*time.Second, "how long the adapter may stay silent while a call waits")
	allowStderr := c.Bool("allow-stderr", false, "report the adapter's stderr output as a warning, not a failure")
	proto := c.String("protocol", protocol.Version, "the stdio protocol `VERSION` init proposes (an adapter answers with the one it speaks; "+protocol.V1+" for one that refuses a newer init)")
	pace := c.Duration("pace", defaultPace, "delay between server-sent events the adapter receives")
	suiteDir := c.String("suite", "", "certify against the suite in `DIR` (scenarios/, cassettes/, goldens/) instead of the built-in one")
	parallel := c.IntP("parallel", "p", 1, "how many runs go at once")
	verbose := c.BoolP("verbose", "v", false, "print every step's checks, not only failures")
	publish := c.String("publish", "", "publish the checkout's suite (--suite DIR, default .) as `VERSION` in certify/suites.json, and certify nothing")
	skip := c.StringSlice("skip", nil, "leave out scenarios whose id matches this glob or that have this tag (`GLOB|TAG`), which the adapter does not claim; repeatable")
	wires := c.StringSlice("wire", nil, "keep only the runs whose model speaks this wire format (anthropic, responses, chat, gemini, ...) or is this column (`WIRE|COLUMN`), the dialects the adapter claims; repeatable")
	budget := c.Duration("wait-budget", harness.DefaultWaitBudget, "the longest wait between attempts an adapter sleeping on its own timers (not the protocol's sleep line) is given before its run is skipped")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if *publish != "" {
		return publishSuite(*publish, *suiteDir, stdout, stderr)
	}
	if *provider == "" {
		return c.Fail(stderr, "--provider is required")
	}
	profiles, err := certify.ParseProfiles(*profileList)
	if err != nil {
		return c.Fail(stderr, "--profile: "+err.Error())
	}
	var required []string
	if *profileList != "" {
		required = profiles
	}
	suite := suiteFrom(*suiteDir)
	opts := certify.Options{Suite: &suite, Profiles: profiles, IDs: c.Args(), Skip: *skip, Wires: *wires, WaitBudget: *budget, Pacing: *pace,
		Progress: runLines(stdout)}
	target := certify.Target{Provider: *provider}
	if *execCmd != "" {
		argv, err := shlex.Split(*execCmd)
		if err != nil || len(argv) == 0 {
			return c.Fail(stderr, fmt.Sprintf("--exec %q: not a command line", *execCmd))
		}
		srv, err := replay.NewServer()
		if err != nil {
			fmt.Fprintln(stderr, "conform certify:", err)
			return exitUsage
		}
		defer srv.Close()
		opts.Server = srv
		target.Kind, target.Command = "exec", *execCmd
		if !slices.Contains(protocol.Versions, *proto) {
			return c.Fail(stderr, fmt.Sprintf("--protocol %q: metis speaks %s", *proto, strings.Join(protocol.Versions, ", ")))
		}
		target.New = execadapter.Factory(execadapter.Options{Command: argv, Timeout: *timeout, AllowStderr: *allowStderr, Protocol: *proto})
	} else {
		target.Kind, target.Name, target.Version = "builtin", "metis "+*provider, certify.Metis().Version
		target.New = builtinFactory(*provider)
	}
	plan, err := certify.NewPlan(target, opts)
	if err != nil {
		fmt.Fprintln(stderr, "conform certify:", err)
		return exitUsage
	}
	if len(plan.Runs) == 0 {
		ps, _ := certify.SuiteProviders(suite, nil)
		fmt.Fprintf(stderr, "conform certify: no run of the suite talks to %s in profiles %s (the suite's providers: %s)\n",
			*provider, strings.Join(plan.Profiles, ", "), strings.Join(ps, ", "))
		return exitUsage
	}
	report, err := certifyPlan(ctx, plan, *parallel, required, *verbose, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "conform certify: %v\nNOT CERTIFIED: the adapter did not start\n", err)
		return exitFailed
	}
	report.Reproduce = reproduce(args)
	fmt.Fprintf(stdout, "\n%s: %s (%s, provider %s) against %s\n", report.Verdict(), report.Adapter.Name, report.Adapter.Kind, plan.Target.Provider, report.Suite)
	digest, err := certify.WriteBundle(*out, report)
	if err != nil {
		fmt.Fprintln(stderr, "conform certify: writing the bundle:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "bundle %s (%s)\ncheck it with: conform verify --digest %s %s\n", *out, digest, digest, *out)
	if !report.Certified {
		return exitFailed
	}
	return exitOK
}

// runLines is a certify.Options.Progress that prints each run's line to
// w as the run ends (runLine, as conform run -v prints them).
func runLines(w io.Writer) func(done, total int, r *harness.ScenarioResult) {
	return func(_, _ int, r *harness.ScenarioResult) { fmt.Fprintln(w, runLine(r)) }
}

// certifyPlan runs plan, whose Options.Progress prints the lines per run
// (runLines), then prints the failures again, every check with verbose,
// the counts and a line per profile.
func certifyPlan(ctx context.Context, plan *certify.Plan, parallel int, required []string, verbose bool, w io.Writer) (*certify.Report, error) {
	report, err := plan.Certify(ctx, parallel, required)
	if err != nil {
		return nil, err
	}
	d := detailRuns
	if verbose {
		d = detailAll
	}
	printResult(w, &harness.Result{Runs: report.Results()}, d, "")
	fmt.Fprintln(w)
	for _, p := range report.Profiles {
		fmt.Fprintf(w, "profile %-9s %-12s %d passed, %d failed, %d skipped\n", p.Name, p.Status, p.Passed, p.Failed, p.Skipped)
	}
	return report, nil
}

// publishSuite is `conform certify --publish VERSION`: the suite of the
// checkout at dir (default ".") becomes published version VERSION in its
// certify/suites.json, with the git trees that hold it. The suite must be
// committed, so that the trees are its content.
func publishSuite(version, dir string, stdout, stderr io.Writer) int {
	if dir == "" {
		dir = "."
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "conform certify --publish: "+format+"\n", args...)
		return exitFailed
	}
	parts := []string{"scenarios", "cassettes", "goldens"}
	status, err := exec.Command("git", append([]string{"-C", dir, "status", "--porcelain", "--"}, parts...)...).Output()
	if err != nil {
		return fail("%s is not a git checkout (git status: %v); publish from metis's repository", dir, err)
	}
	if len(bytes.TrimSpace(status)) > 0 {
		return fail("the suite has uncommitted changes; commit them first, so that the published version is a committed tree:\n%s", status)
	}
	revs := make([]string, len(parts))
	for i, p := range parts {
		revs[i] = "HEAD:" + p
	}
	out, err := exec.Command("git", append([]string{"-C", dir, "rev-parse"}, revs...)...).Output()
	if err != nil {
		return fail("git rev-parse %s: %v", strings.Join(revs, " "), err)
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(parts) {
		return fail("git rev-parse gave %q", out)
	}
	trees := map[string]string{}
	for i, p := range parts {
		trees[p] = ids[i]
	}
	entry, err := certify.Publish(dir, version, time.Now().UTC().Format(time.DateOnly), trees)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stdout, "published suite %s: %s (%s)\nin %s; commit it, and bundles certified by a metis built from that commit name the suite %s\n",
		entry.Version, entry.Hash, entry.Date, certify.SuitesFile, entry.Version)
	return exitOK
}

// builtinFactory is metis's own adapter for the registry adapter name.
func builtinFactory(provider string) adapters.Factory {
	return func(c adapters.Config) (adapters.Adapter, error) {
		f, ok := providers.Factories()[c.Type]
		if !ok {
			return nil, fmt.Errorf("%s has type %q, which no built-in adapter implements", provider, c.Type)
		}
		return f(c)
	}
}

// reproduce is the command line that runs the certification again.
func reproduce(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return strings.TrimSpace("conform certify " + strings.Join(quoted, " "))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
