package harness_test

import (
	"context"
	"fmt"

	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
)

// Run replays a scenario against the committed cassettes through the real
// adapters, checks the stream invariants and the goldens, and reports
// each run, as conform run does.
func ExampleRun() {
	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: "../scenarios",
		CassetteDir: "../cassettes",
		GoldenDir:   "../goldens",
		IDs:         []string{"basic/plain-text"},
		Models:      []string{"anthropic:claude-sonnet-4-6"},
		Factories:   providers.Factories(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Runs {
		fmt.Println(r.ID, r.Model, r.Status)
	}
	passed, failed, _ := res.Counts()
	fmt.Println(passed, "passed,", failed, "failed")
	// Output:
	// basic/plain-text anthropic:claude-sonnet-4-6 pass
	// 1 passed, 0 failed
}
