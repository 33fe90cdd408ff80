package anthropic

import (
	"math"

	"github.com/metis-llm/metis/adapters/driver"
)

// estimator is calibrated on the Messages API: Claude's tokenizer is
// denser than bytes/4 (3.5 bytes per token), the API adds a tool-use
// system preamble whenever tools are present (tools are rendered as
// JSON), 325 tokens as fitted on the calibration half of the vendored
// recordings (Anthropic documents 313–346 for Claude 4 models), and a
// smaller one when extended thinking is on, and an image costs
// width×height/750 tokens after scaling (documented). The adapters/providers
// estimate tests check the fit and hold the other half to ±10%.
var estimator = driver.Estimator{
	BytesPerToken:         3.5,
	NonASCIIRunesPerToken: 1.2,
	PerRequest:            8,
	PerMessage:            3,
	PerBlock:              1,
	ToolsBase:             325,
	PerTool:               8,
	SchemaBytesPerToken:   4,
	Thinking:              25,
	Image:                 imageTokens,
}

// imageTokens is Anthropic's documented w×h/750 after scaling
// the long edge down to 1568 px.
func imageTokens(_ string, w, h int) int {
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > 1568 {
		fw, fh = fw*1568/long, fh*1568/long
	}
	return max(1, int(math.Ceil(fw*fh/750)))
}
