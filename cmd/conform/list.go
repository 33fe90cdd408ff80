package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdList is `conform list`: one line per selected scenario × model.
func cmdList(args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform list", "[ID-GLOB...]", "List the scenario × model runs the filters select, as `conform run` would run them:\n"+
		"one line per run, with the scenario id, the model and the tags, tab-separated.")
	var sel selection
	sel.register(c.FlagSet)
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	cfg, err := sel.config(c.Args())
	if err != nil {
		return c.Fail(stderr, err.Error())
	}
	scs, ok := sel.load(c.Name, cfg, stderr)
	if !ok {
		return exitUsage
	}
	for _, p := range harness.Select(scs, cfg) {
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", p.Scenario.ID, p.Model, strings.Join(p.Scenario.Tags, ","))
	}
	return exitOK
}
