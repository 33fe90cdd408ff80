// Package recordcmd is the record command, `conform record` (and the
// `record` binary, its alias): it refreshes the conformance suite's
// cassettes. It runs the scenarios through the real adapters, records
// each run's HTTP traffic into cassettes/<provider>/<scenario-id>.yaml
// (scrubbed of secrets, written atomically), then replays the new
// cassettes against the goldens and shows the drift.
//
//	conform record [--scenario GLOB] [--model MODEL] [--base-url URL [--source S]] [--emulator]
//	       [--force] [--only-failing] [--dry-run]
//	       [--cassettes DIR] [--scenarios DIR] [--goldens DIR]
//	conform record import [--out FILE | --scenario ID --provider NAME] [--format F]
//	       [--match endpoint|exact] [--project P] [--force] INPUT...
//
// Against the live APIs the keys come from the registry's api_key_env
// variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY); before
// any work, record checks that every variable the selected runs need is
// set, and lists all the missing ones at once (exit 2). With --emulator
// an in-process emulator answers every call from the scenario's reply
// scripts, with a fake key; a --base-url that is a `conform emulate`
// server is recognised (or named with --source emulator) and recorded
// the same way: source emulator, a fake key, no key needed. Existing
// cassettes are kept unless --force, or --only-failing picks runs that
// fail replay now. The work is done by package harness/record. `record
// import` converts traffic other tools recorded (vcrpy, go-vcr, HAR,
// recording directories) into a cassette instead; package
// harness/importer does that work.
package recordcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/internal/cli"
)

// Summary is the command's one-line description, for a list of commands.
const Summary = "record cassettes against the live APIs or the emulator (record import: convert other tools' recordings)"

// Run is the command named name ("conform record", or "record" for the
// alias) with its arguments, the environment as a function and its
// outputs. It returns the exit status: 0 done, 1 a run failed or the
// session could not start, 2 bad usage or missing API keys, 130
// interrupted.
func Run(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "import" {
		return runImport(name+" import", args[1:], stdout, stderr)
	}
	c := cli.New(name, "", "Record scenario runs into cassettes, then replay them against the goldens.\n"+
		"\""+name+" import\" converts other tools' recordings into cassettes instead (commands, below).")
	c.Notes = `commands:
  import    convert traffic other tools recorded (vcrpy, go-vcr, HAR, recording
            directories) into a cassette; "` + name + ` import --help" shows its flags

Against the live APIs the keys come from the registry's api_key_env variables
(ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY); record lists every one the selected
runs need and the environment lacks before doing any work, and exits 2.
--emulator, or a --base-url that is a "conform emulate" server (recognised by its
/health, or said with --source emulator), needs no key: its cassettes say source: emulator.
Exit status: 0 done, 1 a run failed, 2 a usage error or missing keys, 130 interrupted.`
	var (
		cfg    record.Config
		source string
	)
	c.StringSliceVar(&cfg.IDs, "scenario", nil, "record only scenarios whose id matches `GLOB` (repeatable; tools/* or a prefix such as tools/)")
	c.StringSliceVar(&cfg.Models, "model", nil, "record only this matrix `MODEL` (canonical id or provider); repeatable")
	c.StringVar(&cfg.BaseURL, "base-url", "", "send every request to this server (scheme, host, path prefix) instead of the providers'")
	c.StringVar(&source, "source", "", "`SOURCE` of what --base-url answers: live (keys from the environment) or emulator\n"+
		"(a conform emulate server: a fake key); default: emulator when its /health says so")
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
	switch record.Source(source) {
	case "", record.SourceLive, record.SourceEmulator:
		cfg.Source = record.Source(source)
	default:
		return c.Fail(stderr, fmt.Sprintf("--source %q: want live or emulator", source))
	}
	if cfg.Source != "" && cfg.BaseURL == "" {
		return c.Fail(stderr, "--source says what --base-url answers: give --base-url too")
	}
	cfg.Out = stdout
	cfg.Getenv = getenv
	if cfg.BaseURL != "" && cfg.Source == "" && !cfg.DryRun && !cfg.Emulator {
		// Ask before the key check: an emulator needs no key.
		if u, err := url.Parse(cfg.BaseURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			emu, err := record.DetectEmulator(ctx, u, nil)
			if err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			cfg.Source = record.SourceLive
			if emu {
				cfg.Source = record.SourceEmulator
				fmt.Fprintf(stdout, "%s is a conform emulate server: recording source emulator, with a fake key\n", cfg.BaseURL)
			}
		}
	}
	if missing := preflight(&cfg, getenv); len(missing) > 0 {
		fmt.Fprintf(stderr, "%s: the selected runs need API keys the environment lacks; set:\n", name)
		for _, m := range missing {
			fmt.Fprintf(stderr, "  %s\n", m)
		}
		fmt.Fprintln(stderr, "(or record against the emulator with --emulator, or preview with --dry-run)")
		return cli.ExitUsage
	}
	sum, err := record.Run(ctx, cfg)
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "%s: interrupted; existing cassettes are unchanged except those listed as recorded\n", name)
		return 130
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	case sum.Failed():
		return 1
	}
	return 0
}
