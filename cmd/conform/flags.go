package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
)

// selection holds the flags run and list share.
type selection struct {
	scenarios string
	cassettes string
	goldens   string
	models    []string
	tags      []string
	shard     string
}

func (s *selection) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.scenarios, "scenarios", "scenarios", "directory of scenario YAML files")
	fs.StringVar(&s.cassettes, "cassettes", "cassettes", "directory of recorded cassettes")
	fs.StringVar(&s.goldens, "goldens", "goldens", "directory of golden files")
	fs.StringSliceVar(&s.models, "model", nil, "keep only these matrix models (canonical id or provider); repeatable")
	fs.StringSliceVar(&s.tags, "tag", nil, "keep only scenarios with one of these tags; repeatable")
	fs.StringVar(&s.shard, "shard", "", "run only shard i of n, as i/n (i counts from 1)")
}

// config turns the flags and the id globs into a harness.Config.
func (s *selection) config(globs []string) (harness.Config, error) {
	cfg := harness.Config{
		ScenarioDir: s.scenarios,
		CassetteDir: s.cassettes,
		GoldenDir:   s.goldens,
		Models:      s.models,
		Tags:        s.tags,
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
