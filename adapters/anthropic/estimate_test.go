package anthropic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestImageTokenFormulas(t *testing.T) {
	// Worked examples from Anthropic's documentation.
	assert.Equal(t, 1334, imageTokens("", 1000, 1000)) // 1e6/750 = 1333.3
	assert.Equal(t, 1640, imageTokens("", 2000, 1000)) // → 1568×784
}
