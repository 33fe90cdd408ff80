package recordcmd

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/metis-llm/metis/harness/importer"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/internal/cli"
)

// runImport is `conform record import` (name): convert traffic other
// tools recorded into a metis cassette. It returns the exit status: 0
// done, 1 the input could not be converted (nothing was written), 2 bad
// usage.
func runImport(name string, args []string, stdout, stderr io.Writer) int {
	c := cli.New(name, "INPUT...", `Convert recorded HTTP traffic into a metis cassette: vcrpy / pytest-recording
YAML cassettes (pydantic-ai, langchain, ...), go-vcr cassettes, HAR 1.2 files,
or recording directories (testdata/recordings layout). Several inputs are
concatenated in order. Secrets are scrubbed; streams keep their exact bytes.`)
	c.Notes = `Bad input is reported with its file and place, and nothing is written.
Exit status: 0 done, 1 the input could not be converted, 2 a usage error.`
	var (
		out, format, match, cassettes string
		opts                          importer.Options
	)
	c.StringVarP(&out, "out", "o", "", "write the cassette to `FILE` (default: DIR/<provider>/<scenario>.yaml from --cassettes, --provider, --scenario)")
	c.StringVar(&cassettes, "cassettes", "cassettes", "cassette `DIR` for the default output path")
	c.StringVar(&opts.Scenario, "scenario", "", "scenario `ID` the cassette serves (provenance, and the default path)")
	c.StringVar(&opts.Provider, "provider", "", "provider (registry adapter) the cassette is for; guessed from the URL when not given")
	c.StringVar(&opts.Model, "model", "", "matrix `MODEL` the cassette is for (provenance)")
	c.StringVar(&format, "format", "", "input format: vcrpy, go-vcr, har or recording (default: detected)")
	c.StringVar(&opts.Project, "project", "", "origin project that recorded the traffic (provenance; default: what the input says)")
	c.StringVar(&match, "match", string(replay.MatchEndpoint), "how replay matches requests: endpoint (method, path, alt, stream flag) or exact")
	c.StringVar(&opts.Endpoint, "endpoint", "", "`\"METHOD URL\"` of the request, for inputs that did not record it")
	c.BoolVar(&opts.Force, "force", false, "overwrite an existing cassette")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() == 0 {
		return c.Fail(stderr, "no input given (files or recording directories)")
	}
	opts.Format = importer.Format(format)
	opts.Match = replay.Match(match)
	if out == "" {
		if opts.Scenario == "" || opts.Provider == "" {
			return c.Fail(stderr, "give --out, or --scenario and --provider to write cassettes/<provider>/<scenario>.yaml")
		}
		out = filepath.Join(cassettes, opts.Provider, filepath.FromSlash(opts.Scenario)+".yaml")
	}
	res, err := importer.Import(out, c.Args(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\nnothing was written\n", name, err)
		return 1
	}
	if res.Unchanged {
		fmt.Fprintf(stdout, "unchanged %s: it already holds this traffic\n", res.Path)
		return 0
	}
	fmt.Fprintf(stdout, "imported %d interaction(s) from %s (%s) into %s (source imported, match %s)\n",
		res.Interactions, res.Provenance.OriginFile, res.Provenance.OriginFormat, res.Path, res.Provenance.Match)
	return 0
}
