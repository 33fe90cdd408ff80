package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/metis-llm/metis/harness"
)

// MergeReports merges the reports of the shards of one sharded run
// (`conform run --shard i/n` in parallel jobs) into the Result the
// unsharded run would have given, timings aside: the runs in the
// unsharded order, the selection without the shard, the registry entries
// of every shard, the earliest start and the wall time from it to the
// last shard's end. Every shard 1..n must be there once, written by the
// same metis revision with the same filters.
func MergeReports(reps []*Report, names []string) (*harness.Result, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("merge: no report given")
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("report %d", i+1)
	}
	first := reps[0]
	if first.Selection.Shard == nil {
		return nil, fmt.Errorf("merge: %s is not a shard (written without --shard); merge takes the reports of every shard i/n of one run", name(0))
	}
	n := first.Selection.Shard.Count
	if n < 1 {
		return nil, fmt.Errorf("merge: %s is shard %s, which is not a shard count", name(0), first.Selection.Shard)
	}
	if len(reps) != n {
		return nil, fmt.Errorf("merge: %d report(s) for %d shards: %s", len(reps), n, missingShards(reps, n))
	}
	byShard := make([]*Report, n)
	for i, rep := range reps {
		sh := rep.Selection.Shard
		switch {
		case sh == nil:
			return nil, fmt.Errorf("merge: %s is not a shard (written without --shard)", name(i))
		case sh.Count != n:
			return nil, fmt.Errorf("merge: %s is shard %s, %s is shard %s: different shard counts", name(0), first.Selection.Shard, name(i), sh)
		case sh.Index < 1 || sh.Index > n:
			return nil, fmt.Errorf("merge: %s claims to be shard %s, which does not exist", name(i), sh)
		case byShard[sh.Index-1] != nil:
			return nil, fmt.Errorf("merge: shard %s given twice (%s)", sh, name(i))
		}
		if a, b := first.Metis, rep.Metis; a.Version != b.Version || a.Revision != b.Revision || a.Modified != b.Modified {
			return nil, fmt.Errorf("merge: %s was written by %s and %s by %s: shards of one run come from one build", name(0), a, name(i), b)
		}
		if a, b := unsharded(first.Selection), unsharded(rep.Selection); a != b {
			return nil, fmt.Errorf("merge: %s selected %q and %s selected %q: shards of one run share their filters", name(0), a, name(i), b)
		}
		byShard[sh.Index-1] = rep
	}
	res := &harness.Result{Metis: first.Metis, Selection: first.Selection}
	res.Selection.Shard = nil
	var end time.Time
	for _, rep := range byShard {
		if res.Started.IsZero() || rep.Started.Before(res.Started) {
			res.Started = rep.Started
		}
		if e := rep.Started.Add(rep.Duration); e.After(end) {
			end = e
		}
		res.Registry.Adapters = append(res.Registry.Adapters, rep.Registry.Adapters...)
		res.Registry.Models = append(res.Registry.Models, rep.Registry.Models...)
	}
	res.Duration = end.Sub(res.Started)
	res.Registry = unionRegistry(res.Registry)
	// Select gave run k of shard i (from 0) position i + k·n.
	for k := 0; ; k++ {
		added := false
		for _, rep := range byShard {
			if k < len(rep.Runs) {
				run := rep.Runs[k]
				harness.ReformatEvidence(&run)
				res.Runs = append(res.Runs, run)
				added = true
			}
		}
		if !added {
			break
		}
	}
	return res, nil
}

// unsharded is a selection's filters without the shard, as a string.
func unsharded(s harness.Selection) string {
	s.Shard = nil
	return s.String()
}

func missingShards(reps []*Report, n int) string {
	have := map[int]bool{}
	for _, r := range reps {
		if r.Selection.Shard != nil {
			have[r.Selection.Shard.Index] = true
		}
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !have[i] {
			if len(missing) == 5 {
				missing = append(missing, "…")
				break
			}
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) == 0 {
		return "some shard is given twice"
	}
	return "missing shard " + strings.Join(missing, ", ")
}

// unionRegistry sorts the entries and drops repeats.
func unionRegistry(r harness.RegistryInfo) harness.RegistryInfo {
	slices.SortFunc(r.Adapters, func(a, b harness.AdapterInfo) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(r.Models, func(a, b harness.ModelInfo) int { return strings.Compare(a.ID, b.ID) })
	r.Adapters = slices.Compact(r.Adapters)
	r.Models = slices.Compact(r.Models)
	if r.Adapters == nil {
		r.Adapters = []harness.AdapterInfo{}
	}
	if r.Models == nil {
		r.Models = []harness.ModelInfo{}
	}
	return r
}
