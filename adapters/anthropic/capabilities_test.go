package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

func TestCapabilitiesTable(t *testing.T) {
	full := func(maxOut int) canonical.Capabilities {
		return canonical.Capabilities{
			SupportsImages: true, SupportsThinking: true, SupportsTools: true, SupportsSystemPrompt: true,
			SupportsStructuredOutput: true, SupportsStreaming: true, SupportsStreamingToolCalls: true,
			SupportsParallelToolCalls: true, SupportsPromptCaching: true, SupportsSystemMessagesInList: false,
			MaxContextTokens: 200000, MaxOutputTokens: maxOut,
			AcceptedImageMediaTypes: []string{"image/jpeg", "image/png", "image/gif", "image/webp"},
		}
	}
	conservative := canonical.Capabilities{
		SupportsTools: true, SupportsSystemPrompt: true, SupportsStructuredOutput: true,
		SupportsStreaming: true, SupportsStreamingToolCalls: true,
		MaxContextTokens: 200000, MaxOutputTokens: 4096,
	}
	tests := []struct {
		model string
		want  canonical.Capabilities
	}{
		{"anthropic:claude-opus-4-20250514", full(32000)},
		{"anthropic:claude-opus-4-0", full(32000)},
		{"anthropic:claude-opus-4-1-20250805", full(32000)},
		{"anthropic:claude-opus-4-5-20251101", full(64000)},
		{"anthropic:claude-opus-4-6", full(128000)},
		{"anthropic:claude-opus-4-7", full(64000)},
		{"anthropic:claude-sonnet-4-20250514", full(64000)},
		{"anthropic:claude-sonnet-4-6", full(64000)},
		{"anthropic:claude-haiku-4-5", full(64000)},
		{"anthropic:claude-haiku-4-5-20251001", full(64000)},
		{"anthropic:claude-3-haiku-20240307", conservative},
		{"anthropic:claude-next-model", conservative},
	}
	env := newEnv(t, serve(200, "application/json", okBody))
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, env.a.Capabilities(tt.model)); diff != "" {
				t.Errorf("env.a.Capabilities(tt.model) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapabilitiesRegistryOverride(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", okBody), func(c *adapters.Config) {
		c.Models = map[string]adapters.ModelConfig{
			"anthropic:sonnet-1m": {WireName: "claude-sonnet-4-6", Capabilities: json.RawMessage(`{"max_context_tokens":1000000}`)},
		}
	})
	caps := env.a.Capabilities("anthropic:sonnet-1m")
	assert.Equal(t, 1000000, caps.MaxContextTokens)
	assert.True(t, caps.SupportsThinking, "fields not overridden keep the table's value")
}

// TestCapabilityHonesty is 000 §10.1.5: a request needing a capability the
// model declares false is rejected before the wire or projected with the
// WARN, never sent as something the model will fail on.
func TestCapabilityHonesty(t *testing.T) {
	override := func(caps string) func(*adapters.Config) {
		return func(c *adapters.Config) {
			c.Options = map[string]any{"cache": true}
			c.Models = map[string]adapters.ModelConfig{testModel: {Capabilities: json.RawMessage(caps)}}
		}
	}
	tool := canonical.ToolDefinition{Name: "f", Description: "F.", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}

	t.Run("tools", func(t *testing.T) {
		env := newEnv(t, serve(200, "application/json", okBody), override(`{"supports_tools":false}`))
		req := textRequest("hi")
		req.Tools = []canonical.ToolDefinition{tool}
		_, err := env.a.Complete(t.Context(), req)
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
		assert.Equal(t, canonical.CodeUnsupportedContent, ae.Code)
		assert.Zero(t, env.requests())
	})
	t.Run("structured output", func(t *testing.T) {
		env := newEnv(t, serve(200, "application/json", okBody), override(`{"supports_structured_output":false}`))
		_, err := env.a.Complete(t.Context(), structuredRequest())
		assert.Equal(t, canonical.CodeUnsupportedContent, canonical.CodeOf(err))
		assert.Zero(t, env.requests())
	})
	t.Run("images", func(t *testing.T) {
		req := textRequest("look")
		req.Messages[0].Content = append(req.Messages[0].Content, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "AAAA"}, MediaType: "image/png"})
		body, env := sendAndCapture(t, req, override(`{"supports_images":false}`))
		assert.NotContains(t, string(body["messages"]), `"image"`)
		assert.Len(t, warnings(t, env), 1)
	})
	t.Run("thinking", func(t *testing.T) {
		req := textRequest("think")
		req.Thinking = &canonical.ThinkingConfig{BudgetTokens: 2000}
		body, _ := sendAndCapture(t, req, override(`{"supports_thinking":false}`))
		assert.NotContains(t, body, "thinking")
	})
	t.Run("prompt caching", func(t *testing.T) {
		req := textRequest("hi")
		req.SystemPrompt = "Be brief."
		req.Tools = []canonical.ToolDefinition{tool}
		body, _ := sendAndCapture(t, req, override(`{"supports_prompt_caching":false}`))
		assert.NotContains(t, string(body["system"])+string(body["tools"]), "cache_control")
		assert.JSONEq(t, `"Be brief."`, string(body["system"]))
	})
	t.Run("all declared true are served", func(t *testing.T) {
		req := textRequest("look")
		req.SystemPrompt = "Be brief."
		req.Tools = []canonical.ToolDefinition{tool}
		req.Thinking = &canonical.ThinkingConfig{}
		req.Messages[0].Content = append(req.Messages[0].Content, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "AAAA"}, MediaType: "image/gif"})
		body, env := sendAndCapture(t, req, override(`{}`))
		assert.Contains(t, string(body["messages"]), `"image"`)
		assert.Contains(t, body, "thinking")
		assert.Contains(t, string(body["tools"]), "cache_control")
		assert.Contains(t, string(body["system"]), "cache_control")
		assert.Empty(t, warnings(t, env))
	})
}

func TestEstimateInputTokens(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", okBody))
	small := env.a.EstimateInputTokens(textRequest("hi"))
	big := env.a.EstimateInputTokens(textRequest(strings.Repeat("seven ", 6000)))
	assert.Positive(t, small)
	assert.Greater(t, big, small+5000, "36 kB of text is thousands of tokens")
	assert.Zero(t, env.requests(), "estimation never touches the network")
}
