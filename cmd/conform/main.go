// Command conform runs metis's conformance suite: YAML scenarios replayed
// through the real adapters against recorded cassettes, checked against the
// stream invariants, each step's expectations and the goldens.
//
//	conform run [flags] [ID-GLOB...]   run the suite (what CI runs)
//	conform list [flags] [ID-GLOB...]  list scenario × model runs
//	conform validate [flags] [FILE...] lint scenario files as run does
//	conform emulate [flags]            serve the provider emulator by hand
//	conform record [flags]             record cassettes against the live APIs or the emulator
//	conform record import [flags] INPUT...  convert other tools' recordings into cassettes
//	conform report merge [flags] DIR...  merge the reports of sharded runs
//	conform version                    print the version and VCS revision
//	conform certify [flags] [ID-GLOB...] certify an adapter, write a results bundle
//	conform verify [flags] BUNDLE      check a results bundle
//	conform serve [flags]              serve recorded traffic to adapters in any language
//
// Every command takes -h/--help. Exit status: 0 when everything passed, 1
// when a run failed, 2 on a usage or configuration error (a bad flag, a
// scenario that does not load, a filter that selects nothing).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/metis-llm/metis/internal/recordcmd"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// commands are conform's subcommands, in the order usage lists them.
var commands = []struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}{
	{"run", "replay every scenario × model against the cassettes and check it", cmdRun},
	{"list", "list the scenario × model runs a filter selects", func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return cmdList(args, stdout, stderr)
	}},
	{"validate", "lint scenario files exactly as run does; warn about missing cassettes and goldens", cmdValidate},
	{"emulate", "serve the provider emulator on loopback", cmdEmulate},
	{"record", recordcmd.Summary, cmdRecord},
	{"report", "work with written reports (report merge DIR...)", cmdReport},
	{"version", "print the metis version, VCS revision and Go version", cmdVersion},
	{"certify", "certify an adapter (--exec for any language) and write a results bundle", cmdCertify},
	{"verify", "check a results bundle: complete, unchanged, against a known suite", cmdVerify},
	{"serve", "serve the suite's recorded traffic over loopback HTTP for adapters in any language", cmdServe},
}

// run is main without the process: it dispatches the subcommand and
// returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "conform: no command given\n\n")
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "--help":
		if len(rest) == 0 {
			usage(stdout)
			return exitOK
		}
		name, rest = rest[0], []string{"--help"}
	case "--version":
		name = "version"
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(ctx, rest, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "conform: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: conform <command> [flags] [args]\n\nRun and inspect metis's conformance suite.\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
"conform <command> --help" shows a command's flags; "conform --version" is "conform version".
Exit status: 0 all passed, 1 a run failed, 2 a usage or configuration error.
`)
}
