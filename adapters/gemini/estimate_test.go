package gemini

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestImageTokenFormulas(t *testing.T) {
	// Worked examples from Gemini's documentation.
	assert.Equal(t, 258, imageTokens("", 384, 384))
	assert.Equal(t, 1032, imageTokens("", 1024, 1024)) // 2×2 tiles of 768
}
