package pricing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestDefaultTable(t *testing.T) {
	tbl := Default()
	assert.Equal(t, "2026-05-08", tbl.Version)
	assert.Same(t, tbl, Default())
	// Every model of 001 §6.3-6.4 and the model registry has a price.
	for _, m := range []string{
		"anthropic:claude-opus-4-7", "anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5",
		"openai:gpt-5", "openai:gpt-5-mini",
		"gemini:gemini-2.5-pro", "gemini:gemini-2.5-flash", "gemini:gemini-3-pro-preview",
		"ollama:llama-3.3-70b", "openrouter:deepseek/deepseek-v3",
		"ollama:qwen3:8b", "vllm:meta-llama/Llama-3.1-8B-Instruct", "lmstudio:any", "llamacpp:any",
	} {
		_, ok := tbl.Price(m)
		assert.True(t, ok, m)
	}
	// 001 §6.4's example rates, read exactly.
	p, _ := tbl.Price("anthropic:claude-sonnet-4-6")
	if diff := cmp.Diff(Price{Input: dec("3.00"), Output: dec("15.00"), CachedRead: dec("0.30"), CacheWrite: dec("3.75")}, p); diff != "" {
		t.Errorf("price (-want +got):\n%s", diff)
	}
}

// The file on disk is the one embedded.
func TestDefaultIsPricesYAML(t *testing.T) {
	f, err := os.Open(filepath.Join(".", "prices.yaml"))
	require.NoError(t, err)
	defer f.Close()
	tbl, err := Load(f)
	require.NoError(t, err)
	if diff := cmp.Diff(Default().Models(), tbl.Models()); diff != "" {
		t.Errorf("models of the loaded table (-want +got):\n%s", diff)
	}
}

func TestCost(t *testing.T) {
	tests := []struct {
		name  string
		model string
		usage canonical.TokenUsage
		want  string // exact
		cents string // rounded to the cent
	}{
		// 001 §8.1: 8 × $3 + 42 × $15 per MTok = $0.000654.
		{"001 §8.1", "anthropic:claude-sonnet-4-6", canonical.TokenUsage{InputTokens: 8, OutputTokens: 42}, "0.000654", "0.00"},
		// 1,200 × 3 + 850 × 15 + 150,000 × 0.30 + 20,000 × 3.75
		// = 3,600 + 12,750 + 45,000 + 75,000 = 136,350 µ$.
		{"sonnet with cache reads and writes", "anthropic:claude-sonnet-4-6",
			canonical.TokenUsage{InputTokens: 1200, OutputTokens: 850, CachedInputTokens: 150000, CacheCreationInputTokens: 20000},
			"0.13635", "0.14"},
		// 2,000,000 × 5 + 400,000 × 25 + 3,000,000 × 0.50 + 100,000 × 6.25
		// = 10,000,000 + 10,000,000 + 1,500,000 + 625,000 = 22,125,000 µ$.
		{"opus, a long session", "anthropic:claude-opus-4-7",
			canonical.TokenUsage{InputTokens: 2000000, OutputTokens: 400000, CachedInputTokens: 3000000, CacheCreationInputTokens: 100000},
			"22.125", "22.13"},
		// Reasoning tokens are inside output tokens, not added again:
		// 1,000 × 2.50 + 500 × 10 + 4,000 × 0.25 = 2,500 + 5,000 + 1,000.
		{"gpt-5 with cached input and reasoning", "openai:gpt-5",
			canonical.TokenUsage{InputTokens: 1000, OutputTokens: 500, CachedInputTokens: 4000, ReasoningTokens: 300},
			"0.0085", "0.01"},
		// No cache_write rate: cache creation costs the input rate.
		// 100 × 0.25 + 10 × 2 + 1,000 × 0.025 + 1,000 × 0.25 = 25 + 20 + 25 + 250.
		{"missing cache write rate falls back to input", "openai:gpt-5-mini",
			canonical.TokenUsage{InputTokens: 100, OutputTokens: 10, CachedInputTokens: 1000, CacheCreationInputTokens: 1000},
			"0.00032", "0.00"},
		{"local model is free", "ollama:llama-3.3-70b", canonical.TokenUsage{InputTokens: 5000, OutputTokens: 5000}, "0", "0.00"},
		{"provider wildcard", "vllm:Qwen/Qwen3-8B", canonical.TokenUsage{InputTokens: 5000, OutputTokens: 5000, CachedInputTokens: 9}, "0", "0.00"},
		{"no tokens", "gemini:gemini-2.5-pro", canonical.TokenUsage{}, "0", "0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Default().Cost(tt.model, tt.usage)
			require.NoError(t, err)
			assert.True(t, dec(tt.want).Equal(got), "got %s, want %s", got, tt.want)
			assert.Equal(t, tt.cents, got.StringFixed(2))
		})
	}
}

// A conversation's cost summed over its calls, to the cent (001 §11.1.7).
func TestCostOfConversation(t *testing.T) {
	calls := []struct {
		model string
		usage canonical.TokenUsage
	}{
		// 12,000 × 3 + 900 × 15 = 36,000 + 13,500 = 49,500 µ$
		{"anthropic:claude-sonnet-4-6", canonical.TokenUsage{InputTokens: 12000, OutputTokens: 900}},
		// 300 × 3 + 1,100 × 15 + 12,000 × 0.30 = 900 + 16,500 + 3,600 = 21,000 µ$
		{"anthropic:claude-sonnet-4-6", canonical.TokenUsage{InputTokens: 300, OutputTokens: 1100, CachedInputTokens: 12000}},
		// swap: 14,000 × 2.50 + 2,000 × 10 = 35,000 + 20,000 = 55,000 µ$
		{"openai:gpt-5", canonical.TokenUsage{InputTokens: 14000, OutputTokens: 2000}},
	}
	total := decimal.Zero
	for _, c := range calls {
		cost, err := Default().Cost(c.model, c.usage)
		require.NoError(t, err)
		total = total.Add(cost)
	}
	assert.True(t, dec("0.1255").Equal(total), "got %s", total)
	assert.Equal(t, "0.13", total.StringFixed(2))
}

// Rates are exact decimals: three tokens at $0.1/MTok is 0.0000003, not
// float64's 3.0000000000000004e-07.
func TestCostIsExact(t *testing.T) {
	tbl, err := Load(strings.NewReader("pricing_version: t\nmodels:\n  \"x:y\":\n    input_per_mtok_usd: 0.1\n    output_per_mtok_usd: 0.1\n"))
	require.NoError(t, err)
	got, err := tbl.Cost("x:y", canonical.TokenUsage{InputTokens: 3})
	require.NoError(t, err)
	assert.Equal(t, "0.0000003", got.String())
}

func TestCostErrors(t *testing.T) {
	_, err := Default().Cost("openai:gpt-9", canonical.TokenUsage{InputTokens: 1})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnknownModel))
	assert.Equal(t, `pricing_version 2026-05-08: no price for model "openai:gpt-9"`, err.Error())

	_, err = Default().Cost("gpt-5", canonical.TokenUsage{})
	assert.ErrorIs(t, err, ErrUnknownModel)

	_, err = Default().Cost("openai:gpt-5", canonical.TokenUsage{OutputTokens: -1})
	assert.ErrorContains(t, err, "negative token count")
}

func TestUsage(t *testing.T) {
	u, err := Default().Usage("anthropic:claude-sonnet-4-6", canonical.TokenUsage{InputTokens: 8, OutputTokens: 42, ReasoningTokens: 2, Estimated: true}, 820)
	require.NoError(t, err)
	assert.True(t, dec("0.000654").Equal(u.CostUSD))
	u.CostUSD = decimal.Zero
	if diff := cmp.Diff(canonical.Usage{InputTokens: 8, OutputTokens: 42, ReasoningTokens: 2, CostUSD: decimal.Zero, PricingVersion: "2026-05-08", LatencyMS: 820, Estimated: true}, u); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}

	_, err = Default().Usage("nope:x", canonical.TokenUsage{}, 0)
	assert.ErrorIs(t, err, ErrUnknownModel)
}

func TestLoadErrors(t *testing.T) {
	const head = "pricing_version: \"v\"\nmodels:\n"
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"syntax error", "pricing_version: v\nmodels:\n  a: [\n", "pricing: yaml: line 3"},
		{"empty", "", "empty price table"},
		{"not a mapping", "- 1\n", "line 1, column 1: the price table must be a mapping"},
		{"unknown top-level field", "pricing_version: v\ncurrency: EUR\nmodels: {}\n", `line 2, column 1: unknown field "currency"`},
		{"missing version", "models: {}\n", "pricing_version is missing"},
		{"empty version", "pricing_version: \"\"\nmodels: {}\n", "line 1, column 18: pricing_version must be a non-empty string"},
		{"missing models", "pricing_version: v\n", "models is missing"},
		{"models is a list", "pricing_version: v\nmodels: [1]\n", "line 2, column 9: models must be a mapping"},
		{"model id without provider", head + "  gpt-5:\n    input_per_mtok_usd: 1\n    output_per_mtok_usd: 1\n", `line 3, column 3: model "gpt-5" is not a canonical "provider:name" id`},
		{"duplicate model", head + "  \"a:b\": {input_per_mtok_usd: 1, output_per_mtok_usd: 1}\n  \"a:b\": {input_per_mtok_usd: 2, output_per_mtok_usd: 2}\n", `line 4, column 3: models: key "a:b" repeats (first at line 3)`},
		{"unknown rate field", head + "  \"a:b\":\n    input_per_mtok_usd: 1\n    output_per_mtok_usd: 1\n    batch_per_mtok_usd: 1\n", `line 6, column 5: models["a:b"]: unknown field "batch_per_mtok_usd"`},
		{"rate not a number", head + "  \"a:b\":\n    input_per_mtok_usd: cheap\n    output_per_mtok_usd: 1\n", `line 4, column 25: models["a:b"].input_per_mtok_usd: "cheap" is not a decimal number`},
		{"rate is a boolean", head + "  \"a:b\":\n    input_per_mtok_usd: 1\n    output_per_mtok_usd: true\n", `line 5, column 26: models["a:b"].output_per_mtok_usd: "true" is not a number`},
		{"rate is null", head + "  \"a:b\":\n    input_per_mtok_usd: 1\n    output_per_mtok_usd: ~\n", `line 5, column 26: models["a:b"].output_per_mtok_usd`},
		{"rate is a list", head + "  \"a:b\":\n    input_per_mtok_usd: [1]\n    output_per_mtok_usd: 1\n", `line 4, column 25: models["a:b"].input_per_mtok_usd: want a number`},
		{"rate is infinite", head + "  \"a:b\":\n    input_per_mtok_usd: .inf\n    output_per_mtok_usd: 1\n", `line 4, column 25`},
		{"negative rate", head + "  \"a:b\":\n    input_per_mtok_usd: 1\n    output_per_mtok_usd: -0.5\n", `line 5, column 26: models["a:b"].output_per_mtok_usd: rate -0.5 is negative`},
		{"missing output rate", head + "  \"a:b\":\n    input_per_mtok_usd: 1\n", `line 4, column 5: models["a:b"]: output_per_mtok_usd is missing`},
		{"model entry is a scalar", head + "  \"a:b\": 3\n", `line 3, column 10: models["a:b"] must be a mapping`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestLoadReadError(t *testing.T) {
	_, err := Load(errReader{})
	assert.ErrorContains(t, err, "reading table")
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }
