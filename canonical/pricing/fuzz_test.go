package pricing

import (
	"bytes"
	"testing"

	"github.com/metis-llm/metis/canonical"
)

// FuzzLoad reads arbitrary bytes as a price table: it must never panic,
// and every model of a table that loads must price a call.
func FuzzLoad(f *testing.F) {
	f.Add(defaultYAML)
	f.Add([]byte("pricing_version: v\nmodels:\n  \"a:b\": {input_per_mtok_usd: 1e3, output_per_mtok_usd: \"2.5\"}\n"))
	f.Add([]byte("pricing_version: v\nmodels: &m {\"a:*\": {input_per_mtok_usd: 0, output_per_mtok_usd: 0}}\nx: *m\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tbl, err := Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range tbl.Models() {
			if _, err := tbl.Cost(m, canonical.TokenUsage{InputTokens: 1, OutputTokens: 2, CachedInputTokens: 3, CacheCreationInputTokens: 4}); err != nil {
				t.Fatalf("model %q of a loaded table: %v", m, err)
			}
		}
	})
}
