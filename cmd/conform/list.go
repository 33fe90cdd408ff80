package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/harness"
)

// cmdList is `conform list`: one line per selected scenario × model.
func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("conform list", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var sel selection
	sel.register(fs)
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
	scs, err := harness.LoadDir(cfg.ScenarioDir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	for _, p := range harness.Select(scs, cfg) {
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", p.Scenario.ID, p.Model, strings.Join(p.Scenario.Tags, ","))
	}
	return exitOK
}
