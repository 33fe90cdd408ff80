package bench

import (
	"context"
	"strconv"
	"testing"

	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
)

// suiteConfig is the configuration `conform run` builds from its default
// flags (eight runs at once: -p 8), for the repository's suite seen from
// bench/.
func suiteConfig() harness.Config {
	return harness.Config{
		ScenarioDir: "../scenarios",
		CassetteDir: "../cassettes",
		GoldenDir:   "../goldens",
		Factories:   providers.Factories(),
		Faults:      faults.FromSpec,
		Parallel:    8,
	}
}

// BenchmarkSuite runs the whole conformance suite in process as `conform
// run` does (load and lint every scenario, replay every run against its
// cassettes, compare the goldens; no report files), and also a quarter and
// a half of it (--shard): ns/run staying flat across the three shows that
// the time per run does not grow with the suite's size. cpu-ns/op is the
// CPU time a whole run of the suite uses (the wall time is mostly waits:
// runs go eight at once, and the stall scenarios wait out their 2 s
// run_timeout).
func BenchmarkSuite(b *testing.B) {
	for _, shards := range []int{4, 2, 1} {
		name := map[int]string{4: "quarter", 2: "half", 1: "all"}[shards]
		b.Run("suite="+name, func(b *testing.B) {
			cfg := suiteConfig()
			if shards > 1 {
				cfg.Shards = shards
			}
			ctx := context.Background()
			runs := 0
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				res, err := harness.Run(ctx, cfg)
				if err != nil {
					b.Fatal(err)
				}
				runs = len(res.Runs)
				for _, r := range res.Runs {
					if r.Status == harness.StatusFail {
						b.Fatalf("%s failed: %s", r.Name(), r.Reason)
					}
				}
			}
			cpu.report(b)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*runs), "ns/run")
			b.ReportMetric(float64(runs), "runs/op")
			b.Log(name + ": " + strconv.Itoa(runs) + " runs")
		})
	}
}
