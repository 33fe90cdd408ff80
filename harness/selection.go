package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/harness/scenario"
)

// Selection records which filters chose a Result's runs, so that a report
// says what it covers.
type Selection struct {
	IDs    []string `json:"ids,omitempty"`
	Skip   []string `json:"skip,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	Models []string `json:"models,omitempty"`
	// Shard is "i/n" (i counting from 1) when the run was one shard of n.
	Shard *Shard `json:"shard,omitempty"`
	// Oracle is the one oracle whose checks ran when it was not all of
	// them (--oracle contract or regression): the runs checked part of
	// what the suite asks.
	Oracle scenario.Oracle `json:"oracle,omitempty"`
}

// Shard is one part of a sharded selection: Index (from 1) of Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Filtered reports whether the selection is narrower than the whole suite:
// some runs or some checks left out.
func (s Selection) Filtered() bool {
	return len(s.IDs) > 0 || len(s.Skip) > 0 || len(s.Tags) > 0 || len(s.Models) > 0 || s.Shard != nil ||
		(s.Oracle != "" && s.Oracle != scenario.OracleAll)
}

// String describes the filters as command-line arguments would:
// `'tools/*' --model gemini --skip slow --shard 2/4 --oracle contract`; ""
// for none.
func (s Selection) String() string {
	var parts []string
	for _, id := range s.IDs {
		parts = append(parts, quoteArg(id))
	}
	for _, m := range s.Models {
		parts = append(parts, "--model "+quoteArg(m))
	}
	for _, t := range s.Tags {
		parts = append(parts, "--tag "+quoteArg(t))
	}
	for _, k := range s.Skip {
		parts = append(parts, "--skip "+quoteArg(k))
	}
	if s.Shard != nil {
		parts = append(parts, "--shard "+s.Shard.String())
	}
	if s.Oracle != "" && s.Oracle != scenario.OracleAll {
		parts = append(parts, "--oracle "+string(s.Oracle))
	}
	return strings.Join(parts, " ")
}

func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, "*?[] '\"\\$") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// selection is cfg's filters as a Selection.
func (c *Config) selection() Selection {
	s := Selection{IDs: c.IDs, Skip: c.Skip, Tags: c.Tags, Models: c.Models}
	if c.Oracle != scenario.OracleAll {
		s.Oracle = c.Oracle
	}
	if c.Shards > 1 {
		s.Shard = &Shard{Index: c.Shard + 1, Count: c.Shards}
	}
	return s
}

// skipped reports whether one of the --skip values names sc: an id glob
// (as IDs take them) or one of its tags.
func skipped(sc *scenario.Scenario, skip []string) bool {
	for _, k := range skip {
		if slices.Contains(sc.Tags, k) || matchIDs(sc, []string{k}) {
			return true
		}
	}
	return false
}

// NoMatch explains why cfg's filters select no run of scs, naming each
// filter that matches nothing on its own ("no scenario id matches
// \"typo/*\""), or saying that only their combination is empty. It
// returns nil when the selection (before sharding) is not empty.
func NoMatch(scs []*scenario.Scenario, cfg Config) error {
	cfg.Shard, cfg.Shards = 0, 0
	if exp, err := Expand(scs, cfg); err == nil {
		scs = exp // matrices from the columns, for --model
	}
	if len(Select(scs, cfg)) > 0 {
		return nil
	}
	if len(scs) == 0 {
		return fmt.Errorf("no scenario selected: %s holds no scenario", cfg.scenarioDir())
	}
	var why []string
	for _, g := range cfg.IDs {
		if !slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool { return matchIDs(sc, []string{g}) }) {
			why = append(why, fmt.Sprintf("no scenario id matches %s", quoteArg(g)))
		}
	}
	for _, t := range cfg.Tags {
		if !slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool { return slices.Contains(sc.Tags, t) }) {
			why = append(why, fmt.Sprintf("--tag %s: no scenario has that tag", quoteArg(t)))
		}
	}
	for _, m := range cfg.Models {
		if !slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool {
			return slices.ContainsFunc(sc.Models, func(x string) bool { return matchModel(x, []string{m}) })
		}) {
			why = append(why, fmt.Sprintf("--model %s: no scenario's matrix has that model or provider", quoteArg(m)))
		}
	}
	if len(why) == 0 {
		why = append(why, "each filter matches something, but together they select nothing")
		if len(cfg.Skip) > 0 {
			why[0] = "--skip " + strings.Join(cfg.Skip, ", ") + " removes every run the other filters select"
		}
	}
	return fmt.Errorf("no scenario × model run selected by %s: %s", cfg.selection(), strings.Join(why, "; "))
}
