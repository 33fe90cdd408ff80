package gemini

import (
	"math"

	"github.com/metis-llm/metis/adapters/driver"
)

// estimator is calibrated on generateContent: bytes/4 text with
// almost no framing, function declarations counted compactly, and 258
// tokens per image tile.
var estimator = driver.Estimator{
	BytesPerToken:         4,
	NonASCIIRunesPerToken: 1.5,
	PerRequest:            6,
	PerMessage:            1,
	ToolsBase:             0,
	PerTool:               4,
	RenderedSchemas:       true,
	Thinking:              4,
	Image:                 imageTokens,
}

// imageTokens is Gemini's documented cost: 258 tokens for an image
// up to 384 px on both sides, else 258 per 768-px tile.
func imageTokens(_ string, w, h int) int {
	if w <= 384 && h <= 384 {
		return 258
	}
	tiles := math.Ceil(float64(w)/768) * math.Ceil(float64(h)/768)
	return 258 * int(tiles)
}
