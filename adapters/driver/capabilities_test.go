package driver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// TestCapabilityOverride: the driver applies the registry's per-model
// capabilities (models.yaml) field by field over the provider's base.
func TestCapabilityOverride(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	cfg, err := reg.Config("ollama", nil)
	require.NoError(t, err)

	base := canonical.Capabilities{
		SupportsImages: true, SupportsTools: false, SupportsSystemPrompt: true,
		SupportsStreaming: true, SupportsStreamingToolCalls: true, SupportsParallelToolCalls: true,
		MaxContextTokens: 8192, MaxOutputTokens: 4096,
	}
	got := withBase(cfg, base).Capabilities("ollama:qwen3")
	// Overridden by models.yaml.
	assert.False(t, got.SupportsImages)
	assert.True(t, got.SupportsTools)
	assert.True(t, got.SupportsThinking)
	assert.False(t, got.SupportsStreamingToolCalls)
	assert.False(t, got.SupportsParallelToolCalls)
	assert.Equal(t, 40960, got.MaxContextTokens)
	assert.Equal(t, 32768, got.MaxOutputTokens)
	// Kept from the adapter.
	assert.True(t, got.SupportsSystemPrompt)
	assert.True(t, got.SupportsStreaming)

	llama := withBase(cfg, base).Capabilities("ollama:llama-3.3-70b")
	assert.Equal(t, 131072, llama.MaxContextTokens)
	assert.False(t, llama.SupportsTools, "not overridden")

	// Qwen2.5 on vLLM is served with tool calling (--enable-auto-tool-choice).
	vcfg, err := reg.Config("vllm", nil)
	require.NoError(t, err)
	qwen := withBase(vcfg, base).Capabilities("vllm:qwen2.5-7b-instruct")
	assert.True(t, qwen.SupportsTools)
	assert.False(t, qwen.SupportsImages)
	assert.False(t, qwen.SupportsThinking)
	assert.Equal(t, 32768, qwen.MaxContextTokens)
}

// baseProvider declares base for every model.
type baseProvider struct {
	fakeProvider
	base canonical.Capabilities
}

func (p baseProvider) Capabilities(Model) canonical.Capabilities { return p.base }

func withBase(cfg adapters.Config, base canonical.Capabilities) *Adapter {
	a, err := New(cfg, Info{}, func(*adapters.Config) (Provider, error) { return baseProvider{base: base}, nil })
	if err != nil {
		panic(err)
	}
	return a
}
