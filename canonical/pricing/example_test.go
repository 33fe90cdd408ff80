package pricing_test

import (
	"fmt"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/canonical/pricing"
)

// Cost is exact decimal arithmetic over the versioned price table: 8
// input and 42 output tokens on claude-sonnet-4-6 (001 §8.1).
func ExampleTable_Cost() {
	t := pricing.Default()
	cost, err := t.Cost("anthropic:claude-sonnet-4-6", canonical.TokenUsage{InputTokens: 8, OutputTokens: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cost, t.Version)
	// Output: 0.000654 2026-05-08
}
