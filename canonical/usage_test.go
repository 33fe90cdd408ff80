package canonical_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/canonical"
)

func TestUsageTokens(t *testing.T) {
	u := canonical.Usage{InputTokens: 11, OutputTokens: 7, CachedInputTokens: 3, CacheCreationInputTokens: 2,
		ReasoningTokens: 5, CostUSD: decimal.RequireFromString("0.01"), PricingVersion: "v", LatencyMS: 9, Estimated: true}
	want := canonical.TokenUsage{InputTokens: 11, OutputTokens: 7, CachedInputTokens: 3, CacheCreationInputTokens: 2,
		ReasoningTokens: 5, Estimated: true}
	if diff := cmp.Diff(want, u.Tokens()); diff != "" {
		t.Errorf("Tokens() (-want +got):\n%s", diff)
	}
}
