package bedrockconverse

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFamily(t *testing.T) {
	tests := []struct{ id, vendor, name string }{
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic", "claude-sonnet-4-5-20250929-v1:0"},
		{"anthropic.claude-3-haiku-20240307-v1:0", "anthropic", "claude-3-haiku-20240307-v1:0"},
		{"arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.amazon.nova-pro-v1:0", "amazon", "nova-pro-v1:0"},
		{"meta.llama3-1-70b-instruct-v1:0", "meta", "llama3-1-70b-instruct-v1:0"},
		{"my-custom-model", "", "my-custom-model"},
	}
	for _, tc := range tests {
		vendor, name := family(tc.id)
		assert.Equal(t, tc.vendor, vendor, tc.id)
		assert.Equal(t, tc.name, name, tc.id)
	}
}

func TestCapabilities(t *testing.T) {
	c := capabilitiesFor("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	assert.True(t, c.SupportsTools && c.SupportsThinking && c.SupportsImages && c.SupportsStreamingToolCalls, "%+v", c)
	assert.False(t, c.SupportsStructuredOutput, "output_schema is not mapped")
	assert.False(t, c.SupportsPromptCaching, "cache points are not mapped")

	c = capabilitiesFor("us.amazon.nova-pro-v1:0")
	assert.True(t, c.SupportsTools && c.SupportsImages, "%+v", c)
	assert.False(t, c.SupportsThinking)
	c = capabilitiesFor("amazon.nova-micro-v1:0")
	assert.True(t, c.SupportsTools)
	assert.False(t, c.SupportsImages, "Nova Micro is text only")
	c = capabilitiesFor("amazon.titan-text-express-v1")
	assert.False(t, c.SupportsTools)

	for _, id := range []string{"meta.llama3-1-70b-instruct-v1:0", "mistral.mistral-large-2407-v1:0", "my-custom-model"} {
		c := capabilitiesFor(id)
		assert.True(t, c.SupportsStreaming && c.SupportsSystemPrompt, id)
		assert.False(t, c.SupportsTools || c.SupportsImages || c.SupportsThinking, "%s: conservative: %+v", id, c)
	}
}
