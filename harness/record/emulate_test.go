package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
)

func TestScriptPicksTheServersProfile(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	s := newScript(reg, func(string) string { return "sk-test-FAKE" })
	for adapter, want := range map[string]string{
		"vllm": "vllm", "ollama": "ollama", "lmstudio": "lmstudio", "llamacpp": "llamacpp", "openrouter": "openrouter",
		"anthropic": "", "openai": "", "gemini": "", "no-such-adapter": "",
	} {
		assert.Equal(t, want, s.profileOf(adapter), adapter)
	}
}
