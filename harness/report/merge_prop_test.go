package report_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/internal/buildinfo"
)

// shardReports deals runs to n shards as `conform run --shard i/n`
// does: run k of the unsharded order goes to shard k mod n (from 0).
// Each shard gets a start and a duration from starts and durations.
func shardReports(runs []harness.ScenarioResult, n int, sel harness.Selection, starts []time.Time, durs []time.Duration) []*report.Report {
	reps := make([]*report.Report, n)
	for i := range reps {
		s := sel
		s.Shard = &harness.Shard{Index: i + 1, Count: n}
		reps[i] = &report.Report{FormatVersion: 1, Metis: buildinfo.Info{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26.8"},
			Selection: s, Started: starts[i], Duration: durs[i], Runs: []harness.ScenarioResult{}}
	}
	for k, run := range runs {
		reps[k%n].Runs = append(reps[k%n].Runs, run)
	}
	return reps
}

// For any runs, any shard count and the shards given in any order,
// MergeReports gives back the unsharded order, the filters without the
// shard, the earliest start, the wall time to the last shard's end, and
// every shard's registry entries sorted once each.
func TestMergeRestoresTheUnshardedRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 5))
	base := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for iter := range 200 {
		nRuns := rng.IntN(12)
		runs := make([]harness.ScenarioResult, nRuns)
		for k := range runs {
			runs[k] = harness.ScenarioResult{ID: fmt.Sprintf("s%02d", rng.IntN(5)), Model: fmt.Sprintf("m%d:%d", k, rng.IntN(3)), Status: harness.StatusPass}
		}
		n := 1 + rng.IntN(6)
		starts := make([]time.Time, n)
		durs := make([]time.Duration, n)
		wantStart, wantEnd := time.Time{}, time.Time{}
		for i := range n {
			starts[i] = base.Add(time.Duration(rng.IntN(100)) * time.Second)
			durs[i] = time.Duration(rng.IntN(100)) * time.Second
			if wantStart.IsZero() || starts[i].Before(wantStart) {
				wantStart = starts[i]
			}
			if e := starts[i].Add(durs[i]); e.After(wantEnd) {
				wantEnd = e
			}
		}
		sel := harness.Selection{IDs: []string{"basic/*"}, Models: []string{"azure"}}
		reps := shardReports(runs, n, sel, starts, durs)
		// Registry entries: each shard names some of a small set, with repeats.
		adapters := []harness.AdapterInfo{{Name: "c", Type: "openai"}, {Name: "a", Type: "anthropic"}, {Name: "b", Type: "gemini"}}
		models := []harness.ModelInfo{{ID: "z:1", Adapter: "c"}, {ID: "x:1", Adapter: "a"}, {ID: "y:1", Adapter: "b"}}
		var wantAdapters []harness.AdapterInfo
		var wantModels []harness.ModelInfo
		for _, rep := range reps {
			for j := range adapters {
				if rng.IntN(2) == 0 {
					rep.Registry.Adapters = append(rep.Registry.Adapters, adapters[j])
					rep.Registry.Models = append(rep.Registry.Models, models[j])
					if !slices.Contains(wantAdapters, adapters[j]) {
						wantAdapters = append(wantAdapters, adapters[j])
						wantModels = append(wantModels, models[j])
					}
				}
			}
		}
		slices.SortFunc(wantAdapters, func(a, b harness.AdapterInfo) int { return compare(a.Name, b.Name) })
		slices.SortFunc(wantModels, func(a, b harness.ModelInfo) int { return compare(a.ID, b.ID) })
		if wantAdapters == nil {
			wantAdapters = []harness.AdapterInfo{}
			wantModels = []harness.ModelInfo{}
		}
		rng.Shuffle(len(reps), func(i, j int) { reps[i], reps[j] = reps[j], reps[i] })

		res, err := report.MergeReports(reps, nil)
		require.NoError(t, err, "iteration %d", iter)
		got := make([]string, len(res.Runs))
		want := make([]string, len(runs))
		for k := range res.Runs {
			got[k] = res.Runs[k].ID + " " + res.Runs[k].Model
		}
		for k := range runs {
			want[k] = runs[k].ID + " " + runs[k].Model
		}
		assert.Equal(t, want, got, "iteration %d (n=%d): runs in the unsharded order", iter, n)
		assert.Nil(t, res.Selection.Shard, "iteration %d", iter)
		assert.Equal(t, sel.IDs, res.Selection.IDs, "iteration %d", iter)
		assert.Equal(t, sel.Models, res.Selection.Models, "iteration %d", iter)
		assert.True(t, res.Started.Equal(wantStart), "iteration %d: started %v, want %v", iter, res.Started, wantStart)
		assert.Equal(t, wantEnd.Sub(wantStart), res.Duration, "iteration %d: wall time", iter)
		assert.Equal(t, wantAdapters, res.Registry.Adapters, "iteration %d", iter)
		assert.Equal(t, wantModels, res.Registry.Models, "iteration %d", iter)
		assert.Equal(t, "abc", res.Metis.Revision, "iteration %d", iter)
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Each way a set of files is not the shards of one run is refused with
// an error naming the files (or "report N" for a file without a name).
func TestMergeRefusesWhatIsNotOneRun(t *testing.T) {
	shard := func(i, n int) *report.Report {
		return &report.Report{FormatVersion: 1, Metis: buildinfo.Info{Version: "v1.0.0", GoVersion: "go1.26.8"},
			Selection: harness.Selection{Shard: &harness.Shard{Index: i, Count: n}}}
	}
	with := func(r *report.Report, f func(*report.Report)) *report.Report { f(r); return r }
	tests := []struct {
		name  string
		reps  []*report.Report
		names []string
		want  string
	}{
		{"first not a shard", []*report.Report{with(shard(1, 1), func(r *report.Report) { r.Selection.Shard = nil })}, []string{"a"},
			"merge: a is not a shard (written without --shard); merge takes the reports of every shard i/n of one run"},
		{"second not a shard", []*report.Report{shard(1, 2), with(shard(2, 2), func(r *report.Report) { r.Selection.Shard = nil })}, []string{"a", "b"},
			"merge: b is not a shard (written without --shard)"},
		{"zero count", []*report.Report{shard(1, 0)}, []string{"a"}, "merge: a is shard 1/0, which is not a shard count"},
		{"different counts", []*report.Report{shard(1, 2), shard(2, 3)}, []string{"a", "b"},
			"merge: a is shard 1/2, b is shard 2/3: different shard counts"},
		{"twice", []*report.Report{shard(1, 2), shard(1, 2)}, []string{"a", "b"}, "merge: shard 1/2 given twice (b)"},
		{"top index", []*report.Report{shard(2, 2), shard(1, 2)}, []string{"a", "b"}, ""},
		{"too many, none missing", []*report.Report{shard(1, 2), shard(2, 2), shard(2, 2)}, nil,
			"merge: 3 report(s) for 2 shards: some shard is given twice"},
		{"five missing, no ellipsis", []*report.Report{shard(6, 6)}, nil,
			"merge: 1 report(s) for 6 shards: missing shard 1/6, 2/6, 3/6, 4/6, 5/6"},
		{"a report without a name", []*report.Report{shard(1, 2), shard(1, 2)}, []string{"a"}, "merge: shard 1/2 given twice (report 2)"},
		{"different filters", []*report.Report{shard(1, 2), with(shard(2, 2), func(r *report.Report) { r.Selection.Tags = []string{"slow"} })}, []string{"a", "b"},
			`merge: a selected "" and b selected "--tag slow": shards of one run share their filters`},
		{"different versions", []*report.Report{shard(1, 2), with(shard(2, 2), func(r *report.Report) { r.Metis.Version = "v2.0.0" })}, []string{"a", "b"},
			"merge: a was written by metis v1.0.0 (revision unknown) go1.26.8 and b by metis v2.0.0 (revision unknown) go1.26.8: shards of one run come from one build"},
		{"one modified", []*report.Report{shard(1, 2), with(shard(2, 2), func(r *report.Report) { r.Metis.Modified = true })}, []string{"a", "b"}, "shards of one run come from one build"},
	}
	for _, tt := range tests {
		_, err := report.MergeReports(tt.reps, tt.names)
		if tt.want == "" {
			assert.NoError(t, err, tt.name)
			continue
		}
		require.Error(t, err, tt.name)
		if tt.name == "one modified" {
			assert.Contains(t, err.Error(), tt.want, tt.name)
			continue
		}
		assert.EqualError(t, err, tt.want, tt.name)
	}
}
