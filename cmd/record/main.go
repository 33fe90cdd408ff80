// Command record refreshes the conformance suite's cassettes: it runs the
// scenarios through the real adapters, records each run's HTTP traffic
// into cassettes/<provider>/<scenario-id>.yaml (scrubbed of secrets,
// written atomically), then replays the new cassettes against the goldens
// and shows the drift.
//
//	record [--scenario GLOB] [--model MODEL] [--base-url URL] [--emulator]
//	       [--force] [--only-failing] [--dry-run]
//	       [--cassettes DIR] [--scenarios DIR] [--goldens DIR]
//
// Against the live APIs the keys come from the registry's api_key_env
// variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY). With
// --emulator an in-process emulator answers every call from the
// scenario's reply scripts, with a fake key. Existing cassettes are kept
// unless --force, or --only-failing picks runs that fail replay now.
// The work is done by package harness/record.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/harness/record"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments and outputs, returning the exit
// status: 0 done, 1 a run failed or the session could not start, 2 bad
// usage, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("record", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg record.Config
	fs.StringSliceVar(&cfg.IDs, "scenario", nil, "record only scenarios whose id matches `GLOB` (repeatable; tools/* or a prefix such as tools/)")
	fs.StringSliceVar(&cfg.Models, "model", nil, "record only matrix models with this id or provider (repeatable)")
	fs.StringVar(&cfg.BaseURL, "base-url", "", "send every request to this server (scheme, host, path prefix) instead of the providers'")
	fs.BoolVar(&cfg.Emulator, "emulator", false, "answer from an in-process emulator scripted by the scenarios' replies, with a fake key")
	fs.BoolVar(&cfg.Force, "force", false, "overwrite existing cassettes")
	fs.BoolVar(&cfg.OnlyFailing, "only-failing", false, "record only runs that fail replay now, overwriting their cassettes")
	fs.BoolVar(&cfg.DryRun, "dry-run", false, "list what would be recorded, record nothing")
	fs.StringVar(&cfg.CassetteDir, "cassettes", "cassettes", "cassette `DIR`")
	fs.StringVar(&cfg.ScenarioDir, "scenarios", "scenarios", "scenario `DIR`")
	fs.StringVar(&cfg.GoldenDir, "goldens", "goldens", "golden `DIR` the new cassettes are compared with")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: record [flags]\n\nRecord scenario runs into cassettes, then replay them against the goldens.\n\nflags:\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "record: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "record: unexpected arguments %q (scenarios are chosen with --scenario)\n", fs.Args())
		return 2
	}
	cfg.Out = stdout
	sum, err := record.Run(ctx, cfg)
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "record: interrupted; existing cassettes are unchanged except those listed as recorded")
		return 130
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	case sum.Failed():
		return 1
	}
	return 0
}
