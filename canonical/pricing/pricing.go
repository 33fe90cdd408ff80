// Package pricing computes the exact cost of model calls from a versioned
// price table (001 §6.4, 000 §7.1). Adapters report tokens only; the core
// prices them here, so that costs are computed the same way for every
// provider and can be recomputed against another table version later.
//
// A table is YAML:
//
//	pricing_version: "2026-05-08"
//	models:
//	  "anthropic:claude-sonnet-4-6":
//	    input_per_mtok_usd: 3.00
//	    output_per_mtok_usd: 15.00
//	    cached_read_per_mtok_usd: 0.30
//	    cache_write_per_mtok_usd: 3.75
//	  "ollama:*":
//	    input_per_mtok_usd: 0
//	    output_per_mtok_usd: 0
//
// Rates are USD per million tokens and are read as exact decimals, never
// through float64. Input and output rates are required. A missing cached
// read or cache write rate means the provider bills those tokens as
// ordinary input, so they cost the input rate: never zero, which would
// under-count, since canonical.TokenUsage.InputTokens excludes them. A key
// "provider:*" prices every model of that provider without an entry of its
// own (local servers at zero).
//
// Default returns the table embedded in this package (prices.yaml).
package pricing

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/canonical"
)

// Price is one model's rates, in USD per million tokens. CachedRead and
// CacheWrite are already resolved: they equal Input when the table leaves
// them out.
type Price struct {
	Input      decimal.Decimal
	Output     decimal.Decimal
	CachedRead decimal.Decimal
	CacheWrite decimal.Decimal
}

// Table is one version of the price table. It is immutable once loaded
// and safe for concurrent use.
type Table struct {
	// Version is the table's pricing_version, recorded with every cost
	// computed from it (canonical.Usage.PricingVersion).
	Version string
	models  map[string]Price
}

// ErrUnknownModel is wrapped by the error Cost returns for a model the
// table has no price for.
var ErrUnknownModel = errors.New("no price for model")

// Price returns the rates of model, a canonical "provider:name" id: its
// own entry, else its provider's "provider:*" entry.
func (t *Table) Price(model string) (Price, bool) {
	if p, ok := t.models[model]; ok {
		return p, true
	}
	if provider, _, ok := strings.Cut(model, ":"); ok {
		p, ok := t.models[provider+":*"]
		return p, ok
	}
	return Price{}, false
}

// Models lists the table's keys, sorted, wildcards included.
func (t *Table) Models() []string {
	out := make([]string, 0, len(t.models))
	for k := range t.models {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Cost returns the exact cost in USD of one call of model with usage u
// (000 §7.1):
//
//	(input × input rate + output × output rate
//	 + cached input × cached read rate
//	 + cache creation × cache write rate) / 1,000,000
//
// Output tokens include reasoning tokens, which are not added again. The
// result is exact (no rounding); round only for display. An unknown model
// is an error wrapping ErrUnknownModel that names the model and the
// table's pricing_version.
func (t *Table) Cost(model string, u canonical.TokenUsage) (decimal.Decimal, error) {
	p, ok := t.Price(model)
	if !ok {
		return decimal.Decimal{}, fmt.Errorf("pricing_version %s: %w %q", t.Version, ErrUnknownModel, model)
	}
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedInputTokens < 0 || u.CacheCreationInputTokens < 0 {
		return decimal.Decimal{}, fmt.Errorf("pricing %s: negative token count in %+v", model, u)
	}
	perM := decimal.NewFromInt(int64(u.InputTokens)).Mul(p.Input).
		Add(decimal.NewFromInt(int64(u.OutputTokens)).Mul(p.Output)).
		Add(decimal.NewFromInt(int64(u.CachedInputTokens)).Mul(p.CachedRead)).
		Add(decimal.NewFromInt(int64(u.CacheCreationInputTokens)).Mul(p.CacheWrite))
	return perM.Shift(-6), nil
}

// Usage prices u and returns the canonical.Usage an assistant message
// records (001 §4.3): the token counts, the cost, this table's version and
// latencyMS.
func (t *Table) Usage(model string, u canonical.TokenUsage, latencyMS int64) (canonical.Usage, error) {
	cost, err := t.Cost(model, u)
	if err != nil {
		return canonical.Usage{}, err
	}
	return canonical.Usage{
		InputTokens:              u.InputTokens,
		OutputTokens:             u.OutputTokens,
		CachedInputTokens:        u.CachedInputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens,
		ReasoningTokens:          u.ReasoningTokens,
		CostUSD:                  cost,
		PricingVersion:           t.Version,
		LatencyMS:                latencyMS,
		Estimated:                u.Estimated,
	}, nil
}

//go:embed prices.yaml
var defaultYAML []byte

var defaultTable = sync.OnceValue(func() *Table {
	t, err := Load(bytes.NewReader(defaultYAML))
	if err != nil {
		panic("pricing: embedded prices.yaml: " + err.Error())
	}
	return t
})

// Default returns the table embedded in this package, loaded once. The
// same *Table is returned every time.
func Default() *Table { return defaultTable() }

// Load reads a price table in the YAML form described in the package
// documentation. Errors name the line and column of the offending node.
func Load(r io.Reader) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pricing: reading table: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("pricing: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errors.New("pricing: empty price table")
	}
	return parseTable(doc.Content[0])
}
