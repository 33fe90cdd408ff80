package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdValidate is `conform validate [FILE...]`: the schema check and every
// lint `conform run` applies, over the whole scenario directory (so that
// ids are unique and match their paths), reporting the problems in the
// files named (all of them when none is), each as file:line:column:
// message; then a warning for each cassette or golden those scenarios
// still lack.
func cmdValidate(_ context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform validate", "[FILE...]", "Check scenario files exactly as `conform run` does before it runs anything: the schema\n"+
		"(scenarios/schema.json) and every lint, with the whole --scenarios directory loaded so that\n"+
		"ids are unique and match their paths. Then warn about each missing cassette or golden.")
	c.Notes = `With no FILE, every scenario under --scenarios is checked. A FILE outside --scenarios
is checked on its own; its id must match the end of its path.
Exit status: 0 valid (warnings allowed), 1 a problem found, 2 a usage error.`
	scenarioDir := c.String("scenarios", "scenarios", "`DIR` of scenario YAML files")
	cassettes := c.String("cassettes", "cassettes", "`DIR` of recorded cassettes, for the warnings")
	goldens := c.String("goldens", "goldens", "`DIR` of golden files, for the warnings")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		fmt.Fprintln(stderr, "conform validate:", err)
		return exitUsage
	}
	scs, problems, err := validateScenarios(*scenarioDir, c.Args(), reg)
	if err != nil {
		fmt.Fprintln(stderr, "conform validate:", err)
		return exitUsage
	}
	for _, e := range problems {
		fmt.Fprintln(stdout, e)
	}
	if len(problems) > 0 {
		return exitFailed
	}
	cfg := harness.Config{CassetteDir: *cassettes, GoldenDir: *goldens, Registry: reg, Factories: providers.Factories()}
	warnings := harness.MissingFiles(cfg, scs)
	for _, w := range warnings {
		fmt.Fprintln(stdout, w)
	}
	if len(warnings) > 0 {
		fmt.Fprintln(stdout, "`conform run --record=missing ID` records missing cassettes against the emulator and writes missing goldens")
	}
	fmt.Fprintf(stdout, "%d file(s) valid, %d warning(s)\n", len(scs), len(warnings))
	return exitOK
}

// validateScenarios loads and lints the scenario directory as run does,
// with files (if any) in place of the directory's copies, and returns the
// scenarios checked and the problems found in them. The error is non-nil
// when the directory cannot be read (and no file is named).
func validateScenarios(dir string, files []string, reg *adapters.Registry) ([]*scenario.Scenario, []error, error) {
	all, err := scenario.LoadDir(dir)
	var loadErrs scenario.Errors
	if err != nil && !errors.As(err, &loadErrs) {
		if len(files) == 0 || !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		all = nil // no scenario directory: check the files on their own
	}
	var problems []error
	chosen := all
	if len(files) == 0 {
		for _, e := range loadErrs {
			problems = append(problems, e)
		}
	} else {
		chosen = nil // and the files' load errors come from LoadFile
		for _, f := range files {
			sc, err := scenario.LoadFile(f)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			sc.Rel = relPath(dir, f, sc.ID)
			all = slices.DeleteFunc(all, func(o *scenario.Scenario) bool { return samePath(o.File, f) })
			all = append(all, sc)
			chosen = append(chosen, sc)
		}
	}
	for _, e := range scenario.Lint(all, reg) {
		if len(files) == 0 || inFiles(e.Pos.File, files) {
			problems = append(problems, e)
		}
	}
	return chosen, problems, nil
}

// relPath is the path of file that its id must match: relative to dir when
// the file is inside it (as LoadDir sets Rel), else the end of the path
// with as many elements as the id has.
func relPath(dir, file, id string) string {
	if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(file)), "/")
	n := min(strings.Count(id, "/")+1, len(parts))
	return strings.Join(parts[len(parts)-n:], "/")
}

func inFiles(file string, files []string) bool {
	return slices.ContainsFunc(files, func(f string) bool { return samePath(file, f) })
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
