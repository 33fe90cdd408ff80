package harness_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/session/sessiontest"
)

// A scenario's adapter_options are set over the registry's options; a
// null removes the registry's option, so that the adapter runs as if
// models.yaml did not set it (credentials/bedrock-region-from-env runs
// Bedrock without its region option this way).
func TestAdapterOptionsOverTheRegistry(t *testing.T) {
	reg, err := adapters.LoadRegistry(strings.NewReader(`
adapters:
  fake:
    type: fake
    options: {region: eu-west-3, cache: true, kind: registry}
models:
  fake:model: {}
`), "test-models.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, options string
		want          map[string]any
	}{
		{"none", "", map[string]any{"region": "eu-west-3", "cache": true, "kind": "registry"}},
		{"set over", "{kind: scenario, idle_timeout_seconds: 1}", map[string]any{"region": "eu-west-3", "cache": true, "kind": "scenario", "idle_timeout_seconds": 1.0}},
		{"null removes", "{region: null, cache: ~, added: x}", map[string]any{"kind": "registry", "added": "x"}},
		{"null of an unset option", "{absent: null}", map[string]any{"region": "eu-west-3", "cache": true, "kind": "registry"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			opened := 0
			cfg := harness.Config{Registry: reg, NoGoldens: true, Factories: map[string]adapters.Factory{
				"fake": func(c adapters.Config) (adapters.Adapter, error) {
					opened++
					got = c.Options
					return &sessiontest.Adapter{Provider: "fake", Caps: canonical.Capabilities{SupportsStreaming: true}}, nil
				},
			}}
			src := "id: inline\ntitle: options\nmodels: [fake:model]\n"
			if tc.options != "" {
				src += "adapter_options: " + tc.options + "\n"
			}
			src += "steps:\n  - user: hi\n  - call: {}\n"
			runInline(t, cfg, src)
			require.Equal(t, 1, opened, "the adapter is opened once")
			assert.Equal(t, tc.want, got)
		})
	}
}
