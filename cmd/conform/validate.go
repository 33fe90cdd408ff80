package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
)

// cmdValidate is `conform validate FILE...`: schema and semantic lint;
// every problem is printed as file:line:column: message.
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("conform validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: conform validate FILE...")
		return exitUsage
	}
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return exitUsage
	}
	var scs []*harness.Scenario
	bad := false
	for _, f := range fs.Args() {
		sc, err := harness.LoadFile(f)
		if err != nil {
			fmt.Fprintln(stdout, err)
			bad = true
			continue
		}
		scs = append(scs, sc)
	}
	for _, e := range harness.Lint(scs, reg) {
		fmt.Fprintln(stdout, e)
		bad = true
	}
	if bad {
		return exitFailed
	}
	fmt.Fprintf(stdout, "%d file(s) valid\n", len(scs))
	return exitOK
}
