// Command record refreshes the conformance suite's cassettes: it runs the
// scenarios through the real adapters, records each run's HTTP traffic
// into cassettes/<provider>/<scenario-id>.yaml (scrubbed of secrets,
// written atomically), then replays the new cassettes against the goldens
// and shows the drift.
//
//	record [--scenario GLOB] [--model MODEL] [--base-url URL] [--emulator]
//	       [--force] [--only-failing] [--dry-run]
//	       [--cassettes DIR] [--scenarios DIR] [--goldens DIR]
//	record import [--out FILE | --scenario ID --provider NAME] [--format F]
//	       [--match endpoint|exact] [--project P] [--force] INPUT...
//
// Against the live APIs the keys come from the registry's api_key_env
// variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY); before
// any work, record checks that every variable the selected runs need is
// set, and lists all the missing ones at once (exit 2). With --emulator
// an in-process emulator answers every call from the scenario's reply
// scripts, with a fake key. Existing cassettes are kept unless --force,
// or --only-failing picks runs that fail replay now. The work is done by
// package harness/record. `record import` converts traffic other tools
// recorded (vcrpy, go-vcr, HAR, recording directories) into a cassette
// instead; package harness/importer does that work.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments and outputs, returning the exit
// status: 0 done, 1 a run failed or the session could not start, 2 bad
// usage or missing API keys, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, os.Getenv, stdout, stderr)
}

// runEnv is run with the environment as a function.
func runEnv(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "import" {
		return runImport(args[1:], stdout, stderr)
	}
	c := cli.New("record", "", "Record scenario runs into cassettes, then replay them against the goldens.")
	c.Notes = `Against the live APIs the keys come from the registry's api_key_env variables
(ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY); record lists every one the selected
runs need and the environment lacks before doing any work, and exits 2.
Exit status: 0 done, 1 a run failed, 2 a usage error or missing keys, 130 interrupted.`
	var cfg record.Config
	c.StringSliceVar(&cfg.IDs, "scenario", nil, "record only scenarios whose id matches `GLOB` (repeatable; tools/* or a prefix such as tools/)")
	c.StringSliceVar(&cfg.Models, "model", nil, "record only this matrix `MODEL` (canonical id or provider); repeatable")
	c.StringVar(&cfg.BaseURL, "base-url", "", "send every request to this server (scheme, host, path prefix) instead of the providers'")
	c.BoolVar(&cfg.Emulator, "emulator", false, "answer from an in-process emulator scripted by the scenarios' replies, with a fake key")
	c.BoolVar(&cfg.Force, "force", false, "overwrite existing cassettes")
	c.BoolVar(&cfg.OnlyFailing, "only-failing", false, "record only runs that fail replay now, overwriting their cassettes")
	c.BoolVar(&cfg.DryRun, "dry-run", false, "list what would be recorded, record nothing")
	c.StringVar(&cfg.CassetteDir, "cassettes", "cassettes", "cassette `DIR`")
	c.StringVar(&cfg.ScenarioDir, "scenarios", "scenarios", "scenario `DIR`")
	c.StringVar(&cfg.GoldenDir, "goldens", "goldens", "golden `DIR` the new cassettes are compared with")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.Fail(stderr, fmt.Sprintf("unexpected arguments %q (scenarios are chosen with --scenario)", c.Args()))
	}
	cfg.Out = stdout
	cfg.Getenv = getenv
	if missing := preflight(&cfg, getenv); len(missing) > 0 {
		fmt.Fprintf(stderr, "record: the selected runs need API keys the environment lacks; set:\n")
		for _, m := range missing {
			fmt.Fprintf(stderr, "  %s\n", m)
		}
		fmt.Fprintln(stderr, "(or record against the emulator with --emulator, or preview with --dry-run)")
		return cli.ExitUsage
	}
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
