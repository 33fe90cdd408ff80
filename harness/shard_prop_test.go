package harness_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/stretchr/testify/require"
)

// shardModels are matrix models the generated scenarios draw from.
var shardModels = []string{"anthropic:claude-sonnet-4-6", "openai:gpt-5", "gemini:gemini-2.5-flash", "ollama:qwen3", "azure:gpt-5-mini"}

// genScenarios makes up to 12 scenarios with ids in random order (some
// sharing a family) and each a random non-empty subset of shardModels.
func genScenarios(t *testing.T, r *rand.Rand) []*scenario.Scenario {
	t.Helper()
	var scs []*scenario.Scenario
	for i := range r.IntN(13) {
		var models []string
		for _, m := range shardModels {
			if r.IntN(2) == 0 {
				models = append(models, m)
			}
		}
		if len(models) == 0 {
			models = shardModels[:1]
		}
		id := fmt.Sprintf("fam%d/s%02d-%d", r.IntN(3), r.IntN(100), i)
		src := fmt.Sprintf("id: %s\ntitle: t\ntags: [t%d]\nmodels: [%s]\nsteps: [{user: hi}]\n", id, r.IntN(2), strings.Join(models, ", "))
		scs = append(scs, parse(t, id+".yaml", src))
	}
	return scs
}

func pairName(p harness.Pair) string { return p.Scenario.ID + " " + p.Model }

// TestShardsPartitionTheSelection is the sharding property: for any
// scenarios, filters and shard count n, the n shards of Select are
// disjoint and together are the unsharded selection, every run exactly
// once; and merging the shards' reports gives the runs in the unsharded
// order (MergeReports).
func TestShardsPartitionTheSelection(t *testing.T) {
	iterations := 300
	if testing.Short() {
		iterations = 60
	}
	r := rand.New(rand.NewPCG(34, 7))
	for range iterations {
		scs := genScenarios(t, r)
		cfg := harness.Config{}
		if r.IntN(3) == 0 {
			cfg.Tags = []string{"t1"}
		}
		if r.IntN(3) == 0 {
			cfg.Models = []string{shardModels[r.IntN(len(shardModels))]}
		}
		all := harness.Select(scs, cfg)
		n := 1 + r.IntN(min(len(all)+3, 16))
		seen := map[string]int{}
		reps := make([]*report.Report, n)
		names := make([]string, n)
		for i := range n {
			c := cfg
			c.Shard, c.Shards = i, n
			rep := &report.Report{FormatVersion: 1, Selection: harness.Selection{Shard: &harness.Shard{Index: i + 1, Count: n}}}
			for _, p := range harness.Select(scs, c) {
				seen[pairName(p)]++
				rep.Runs = append(rep.Runs, harness.ScenarioResult{ID: p.Scenario.ID, Model: p.Model, Status: harness.StatusPass})
			}
			reps[i], names[i] = rep, fmt.Sprintf("shard %d", i+1)
		}
		// Every run of the selection is in exactly one shard, and no
		// shard has a run the selection does not.
		var want []string
		for _, p := range all {
			want = append(want, pairName(p))
			require.Equal(t, 1, seen[pairName(p)], "run %s in %d of %d shards", pairName(p), seen[pairName(p)], n)
		}
		total := 0
		for _, k := range seen {
			total += k
		}
		require.Equal(t, len(all), total, "the %d shards hold %d runs, the selection %d", n, total, len(all))

		// Reports given in any order merge to the unsharded order.
		r.Shuffle(n, func(i, j int) { reps[i], reps[j] = reps[j], reps[i]; names[i], names[j] = names[j], names[i] })
		res, err := report.MergeReports(reps, names)
		require.NoError(t, err)
		var got []string
		for _, run := range res.Runs {
			got = append(got, run.ID+" "+run.Model)
		}
		require.Equal(t, want, got, "merged runs of %d shards", n)
		require.Nil(t, res.Selection.Shard, "a merged result is not a shard")
	}
}
