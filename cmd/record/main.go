// Command record is `conform record` under its older name: it refreshes
// the conformance suite's cassettes against the live APIs or the
// emulator, and `record import` converts other tools' recordings into
// cassettes. Package internal/recordcmd is the command; see its doc, or
// `record --help`.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/metis-llm/metis/internal/recordcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments and outputs, returning the exit
// status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return recordcmd.Run(ctx, "record", args, os.Getenv, stdout, stderr)
}
