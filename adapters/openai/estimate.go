package openai

import (
	"math"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
)

// Estimator is the token-estimate tuning of OpenAI, calibrated on Chat
// Completions and Responses (OpenAI-compatible servers use it too):
// bytes/4 text, a few tokens of framing per message, function schemas
// rendered as declarations (JSON punctuation is not billed), and images
// billed per 512-px tile.
var Estimator = driver.Estimator{
	BytesPerToken:         4,
	NonASCIIRunesPerToken: 1.5,
	PerRequest:            3,
	PerMessage:            4,
	PerBlock:              1,
	ToolsBase:             12,
	PerTool:               5,
	RenderedSchemas:       true,
	PerProperty:           3,
	Image:                 imageTokens,
}

// imageTokens is OpenAI's documented high-detail cost: fit within
// 2048×2048, scale the short side down to 768, then a base cost plus a
// cost per 512-px tile. Most models pay 85 + 170 per tile; the gpt-5
// family 70 + 140, the o-series 75 + 150, and gpt-4o-mini 2833 + 5667.
func imageTokens(model string, w, h int) int {
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > 2048 {
		fw, fh = fw*2048/long, fh*2048/long
	}
	if short := min(fw, fh); short > 768 {
		fw, fh = fw*768/short, fh*768/short
	}
	tiles := int(math.Ceil(fw/512) * math.Ceil(fh/512))
	base, tile := 85, 170
	_, name, _ := strings.Cut(model, ":")
	switch {
	case strings.HasPrefix(name, "gpt-5"):
		base, tile = 70, 140
	case strings.HasPrefix(name, "o1"), strings.HasPrefix(name, "o3"), strings.HasPrefix(name, "o4"):
		base, tile = 75, 150
	case strings.HasPrefix(name, "gpt-4o-mini"):
		base, tile = 2833, 5667
	}
	return base + tile*tiles
}
