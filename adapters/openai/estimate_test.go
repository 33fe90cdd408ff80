package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestImageTokenFormulas(t *testing.T) {
	// Worked examples from OpenAI's documentation.
	assert.Equal(t, 765, imageTokens("openai:gpt-4o", 1024, 1024))  // → 768×768, 4 tiles
	assert.Equal(t, 1105, imageTokens("openai:gpt-4o", 2048, 4096)) // → 768×1536, 6 tiles
	assert.Equal(t, 630, imageTokens("openai:gpt-5", 1024, 1024))   // 70 + 4×140
	assert.Equal(t, 8500, imageTokens("openai:gpt-4o-mini", 512, 512))
	assert.Equal(t, 225, imageTokens("openai:o3", 50, 50))
}
