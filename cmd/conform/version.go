package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/metis-llm/metis/internal/buildinfo"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdVersion is `conform version` (and `conform --version`): the metis
// module version, the VCS revision and the Go version, from the binary's
// build information.
func cmdVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform version", "", "Print the metis module version, the VCS revision it was built from and the Go version.\n"+
		"A binary from `go build` carries its revision; under `go run` it is read with git from metis's own checkout around the working directory.")
	asJSON := c.Bool("json", false, "print a JSON object instead of one line")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.Fail(stderr, fmt.Sprintf("unexpected arguments %q", c.Args()))
	}
	info := buildinfo.Read()
	if *asJSON {
		data, _ := json.MarshalIndent(info, "", "  ")
		fmt.Fprintf(stdout, "%s\n", data)
		return exitOK
	}
	fmt.Fprintln(stdout, info)
	return exitOK
}
