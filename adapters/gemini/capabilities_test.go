package gemini

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

func TestCapabilitiesPerModel(t *testing.T) {
	a, _ := testAdapter(t)
	for _, model := range []string{"gemini:gemini-2.5-pro", "gemini:gemini-2.5-flash", "gemini:gemini-3-pro-preview"} {
		c := a.Capabilities(model)
		assert.True(t, c.SupportsImages, model)
		assert.True(t, c.SupportsThinking, model)
		assert.True(t, c.SupportsTools, model)
		assert.True(t, c.SupportsSystemPrompt, model)
		assert.True(t, c.SupportsStructuredOutput, model)
		assert.True(t, c.SupportsStreaming, model)
		assert.False(t, c.SupportsStreamingToolCalls, model)
		assert.True(t, c.SupportsParallelToolCalls, model)
		assert.False(t, c.SupportsPromptCaching, model)
		assert.False(t, c.SupportsSystemMessagesInList, model)
		assert.Equal(t, 1048576, c.MaxContextTokens, model)
		assert.Equal(t, 65536, c.MaxOutputTokens, model)
		if diff := cmp.Diff([]string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}, c.AcceptedImageMediaTypes); diff != "" {
			t.Errorf("%v (-want +got):\n%s", model, diff)
		}
	}
	flash := a.Capabilities("gemini:gemini-2.0-flash")
	assert.False(t, flash.SupportsThinking)
	assert.Equal(t, 8192, flash.MaxOutputTokens)
	gemma := a.Capabilities("gemini:gemma-3-27b-it")
	assert.False(t, gemma.SupportsTools)
	assert.False(t, gemma.SupportsSystemPrompt)

	// The caller cannot alias the table.
	c := a.Capabilities(testModel)
	c.AcceptedImageMediaTypes[0] = "image/gif"
	assert.Equal(t, "image/png", a.Capabilities(testModel).AcceptedImageMediaTypes[0])
}

func TestCapabilityOverrides(t *testing.T) {
	a, err := New(adapters.Config{APIKey: testAPIKey, Models: map[string]adapters.ModelConfig{
		"gemini:fast": {WireName: "gemini-2.5-flash", Capabilities: json.RawMessage(`{"supports_tools":false,"max_output_tokens":1000}`)},
	}})
	require.NoError(t, err)
	c := a.Capabilities("gemini:fast")
	assert.False(t, c.SupportsTools, "registry override")
	assert.Equal(t, 1000, c.MaxOutputTokens)
	assert.True(t, c.SupportsThinking, "from the wire name gemini-2.5-flash")
}

// TestCapabilityHonesty: a request that needs a capability the model
// declares false fails cleanly with invalid_request before any HTTP call.
func TestCapabilityHonesty(t *testing.T) {
	gemma := "gemini:gemma-3-27b-it"
	image := canonical.Message{Role: canonical.RoleUser, Content: canonical.Blocks{
		canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "R0lGOD=="}, MediaType: "image/gif"}}}
	for _, tc := range []struct {
		name string
		req  *canonical.Request
		want string
	}{
		{"tools", &canonical.Request{Model: gemma, Messages: []canonical.Message{userMsg("hi")}, Tools: []canonical.ToolDefinition{getWeather}}, "does not support tools"},
		{"system prompt", &canonical.Request{Model: gemma, SystemPrompt: "be brief", Messages: []canonical.Message{userMsg("hi")}}, "does not support a system prompt"},
		{"system message", &canonical.Request{Model: gemma, Messages: []canonical.Message{sysMsg("be brief"), userMsg("hi")}}, "does not support a system prompt"},
		{"structured output", &canonical.Request{Model: gemma, Messages: []canonical.Message{userMsg("hi")}, OutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}, "structured output"},
		{"image type", &canonical.Request{Model: testModel, Messages: []canonical.Message{image}}, "image/gif"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jsonReply(200, okBody))
			_, err := e.a.Complete(context.Background(), tc.req)
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
			assert.Equal(t, canonical.CodeUnsupportedContent, ae.Code)
			assert.Contains(t, ae.Message, tc.want)

			_, err = adaptertest.Collect(e.a.Stream(context.Background(), tc.req))
			require.ErrorAs(t, err, &ae)
			assert.Empty(t, e.Requests(), "rejected before the wire")
		})
	}

	// The true flags hold: a thinking request carries thinkingConfig, and
	// a model that cannot think is sent none rather than failing.
	a, _ := testAdapter(t)
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: []canonical.Message{userMsg("hi")}, Thinking: &canonical.ThinkingConfig{}})
	assert.NotNil(t, path(t, body, "generationConfig", "thinkingConfig"))
	// Prompt caching is not exposed: no request ever names a cache.
	assert.NotContains(t, body, "cachedContent")
}
