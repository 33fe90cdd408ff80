// Command conform runs metis's conformance suite: YAML scenarios replayed
// through the real adapters against recorded cassettes, checked against the
// stream invariants, each step's expectations and the goldens.
//
//	conform run [flags] [ID-GLOB...]   run the suite (what CI runs)
//	conform list [flags] [ID-GLOB...]  list scenario × model runs
//	conform validate FILE...           lint scenario files
//	conform emulate [--addr ADDR]      serve the provider emulator by hand
//
// Exit status: 0 when everything passed, 1 when a run failed, 2 on a
// usage or configuration error.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
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

// run is main without the process: it dispatches the subcommand and
// returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "list":
		return cmdList(args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "emulate":
		return cmdEmulate(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "conform: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: conform <command> [flags]

commands:
  run       replay every scenario × model against the cassettes and check it
  list      list the scenario × model runs a filter selects
  validate  lint scenario files against scenarios/schema.json and the registry
  emulate   serve the provider emulator on loopback

Run "conform <command> --help" for the command's flags.
`)
}
