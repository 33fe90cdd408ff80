package harness_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sebdah/goldie/v2"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/scenario"
)

// The conformance suite under go test: one ginkgo table entry per
// scenario × model, labelled with the scenario's tags and the model's
// provider (ginkgo --label-filter=tools selects by tag). It replays
// ../cassettes and compares ../goldens through goldie, so
// GOLDIE_UPDATE=1 go test ./harness rewrites goldens. Until `record` has
// made a run's cassette the run is skipped.
func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "metis conformance")
}

var _ = Describe("conformance", func() {
	scs, err := scenario.LoadDir("../scenarios")
	if err != nil {
		panic(err) // a broken scenario file is a programmer error here
	}
	// Under -short (the race detector's pass in CI) one run in eight;
	// conform run, the main job, replays them all.
	sel := harness.Config{Factories: factories()}
	if testing.Short() {
		sel.Shard, sel.Shards = 0, 8
	}
	var entries []TableEntry
	for _, p := range harness.Select(scs, sel) {
		labels := append([]string{canonical.ProviderOf(p.Model)}, p.Scenario.Tags...)
		entries = append(entries, Entry(p.Scenario.ID+" ["+p.Model+"]", p, Label(labels...)))
	}
	DescribeTable("scenario", func(p harness.Pair) {
		cfg := harness.Config{
			CassetteDir:          "../cassettes",
			GoldenDir:            "../goldens",
			Factories:            factories(),
			SkipMissingCassettes: true,
			Golden:               goldieCompare,
			Faults:               faults.FromSpec,
		}
		res := harness.RunScenario(context.Background(), cfg, p.Scenario, p.Model)
		if res.Status == harness.StatusSkip || res.Status == harness.StatusKnownFailure {
			Skip(res.Reason)
		}
		var details []string
		for _, f := range res.Findings {
			details = append(details, f.String())
		}
		Expect(res.Status).To(Equal(harness.StatusPass), res.Reason+"\n"+strings.Join(details, "\n"))
	}, entries)
})

// goldieCompare is the Config.Golden hook under go test: goldie reads,
// updates (GOLDIE_UPDATE=1 or -update) and reports, with the harness's own
// (-want +got) diff.
func goldieCompare(path string, got []byte) (string, error) {
	g := goldie.New(GinkgoTB(),
		goldie.WithFixtureDir(filepath.Dir(path)),
		goldie.WithNameSuffix(""),
		goldie.WithDiffFn(func(actual, expected string) string {
			return "(-want +got)\n" + check.GoldenDiff([]byte(expected), []byte(actual))
		}),
	)
	g.Assert(GinkgoTB(), filepath.Base(path), got)
	return "", nil
}
