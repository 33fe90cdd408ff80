package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/scenario"
)

// selection holds the flags run and list share.
type selection struct {
	scenarios string
	cassettes string
	goldens   string
	models    []string
	tags      []string
	skip      []string
	shard     string
}

func (s *selection) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.scenarios, "scenarios", "scenarios", "`DIR` of scenario YAML files")
	fs.StringVar(&s.cassettes, "cassettes", "cassettes", "`DIR` of recorded cassettes")
	fs.StringVar(&s.goldens, "goldens", "goldens", "`DIR` of golden files")
	fs.StringSliceVar(&s.models, "model", nil, "keep only this matrix `MODEL` (canonical id or provider); repeatable")
	fs.StringSliceVar(&s.tags, "tag", nil, "keep only scenarios with this `TAG`; repeatable")
	fs.StringSliceVar(&s.skip, "skip", nil, "drop scenarios whose id matches this glob or that have this tag (`GLOB|TAG`); repeatable")
	fs.StringVar(&s.shard, "shard", "", "run only shard `I/N` of the selection (I counts from 1)")
}

// dirFlags are the --scenarios, --cassettes and --goldens flags that
// differ from their defaults, each with a leading space, as a command
// line repeats them.
func (s *selection) dirFlags() string {
	var out string
	for _, f := range []struct{ name, value, def string }{
		{"scenarios", s.scenarios, "scenarios"}, {"cassettes", s.cassettes, "cassettes"}, {"goldens", s.goldens, "goldens"},
	} {
		if f.value != f.def {
			out += " --" + f.name + " " + shellQuote(f.value)
		}
	}
	return out
}

// config turns the flags and the id globs into a harness.Config.
func (s *selection) config(globs []string) (harness.Config, error) {
	cfg := harness.Config{
		ScenarioDir: s.scenarios,
		CassetteDir: s.cassettes,
		GoldenDir:   s.goldens,
		Models:      s.models,
		Tags:        s.tags,
		Skip:        s.skip,
		IDs:         globs,
		Factories:   providers.Factories(),
		Faults:      faults.FromSpec,
	}
	if s.shard != "" {
		i, n, err := parseShard(s.shard)
		if err != nil {
			return cfg, err
		}
		cfg.Shard, cfg.Shards = i-1, n
	}
	return cfg, nil
}

// load loads and lints the scenarios and checks that the filters select
// something. On failure it prints the problems to stderr (each naming
// file:line:column, or the filter that matches nothing) and returns false;
// the exit status is then exitUsage.
func (s *selection) load(name string, cfg harness.Config, stderr io.Writer) ([]*scenario.Scenario, bool) {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, false
	}
	scs, err := scenario.LoadAndLint(cfg.ScenarioDir, reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, false
	}
	if err := harness.NoMatch(scs, cfg); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, false
	}
	return scs, true
}

// parseShard reads "i/n" with 1 <= i <= n.
func parseShard(v string) (i, n int, err error) {
	a, b, ok := strings.Cut(v, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, such as 2/4", v)
	}
	return i, n, nil
}
