package recordcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/scenario"
)

// preflight checks, before a live recording does any work, that the
// environment holds the API key of every adapter the selected runs would
// record against. It returns one line per missing variable, naming the
// adapters that need it and how many runs, in variable order; nil when nothing is missing or
// the recording needs no keys (--emulator, a base URL answering as the
// emulator, --dry-run). A run whose
// cassettes all exist is not recorded without --force or --only-failing,
// so it needs no key. The scenarios it loads are left in cfg.Scenarios for
// record.Run; when they do not load, preflight leaves the error to
// record.Run.
func preflight(cfg *record.Config, getenv func(string) string) []string {
	if cfg.Emulator || cfg.Source == record.SourceEmulator || cfg.DryRun {
		return nil
	}
	reg := cfg.Registry
	if reg == nil {
		var err error
		if reg, err = adapters.DefaultRegistry(); err != nil {
			return nil
		}
	}
	scs, err := scenario.LoadAndLint(cfg.ScenarioDir, reg)
	if err != nil {
		return nil
	}
	cfg.Scenarios = scs
	runs := map[string]int{} // adapter → runs that record against it
	for _, p := range harness.Select(scs, harness.Config{IDs: cfg.IDs, Models: cfg.Models}) {
		for _, prov := range p.Scenario.Providers(p.Model) {
			path := scenario.CassettePath(cfg.CassetteDir, p.Scenario, p.Model, prov)
			if _, err := os.Stat(path); cfg.Force || cfg.OnlyFailing || errors.Is(err, fs.ErrNotExist) {
				runs[prov]++
			}
		}
	}
	byVar := map[string][]string{}
	var other []string
	for prov, n := range runs {
		if _, err := reg.Config(prov, getenv); err == nil {
			continue
		} else if c, err2 := reg.Config(prov, func(string) string { return "set" }); err2 == nil && c.APIKeyEnv != "" {
			byVar[c.APIKeyEnv] = append(byVar[c.APIKeyEnv], fmt.Sprintf("adapter %s, %d run(s)", prov, n))
		} else {
			other = append(other, err.Error())
		}
	}
	var out []string
	for v, uses := range byVar {
		slices.Sort(uses)
		out = append(out, fmt.Sprintf("%s (%s)", v, strings.Join(uses, "; ")))
	}
	slices.Sort(out)
	slices.Sort(other)
	return append(out, other...)
}
