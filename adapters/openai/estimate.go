package openai

import (
	"context"
	"log/slog"
	"math"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Estimator is the token-estimate tuning of OpenAI (OpenAI-compatible
// servers start from it too). Text is counted by the model's real BPE
// encoding (Tokenizer: o200k_base or cl100k_base), else at 4 bytes per
// token. The framing is OpenAI's documented one ("How to count tokens
// with tiktoken", OpenAI cookbook): 3 tokens of reply priming per
// request, 3 per message plus its role; function definitions are
// rendered as declarations costing 12 tokens once, 7 per function and 3
// per property besides their names, types and descriptions (JSON
// punctuation is not billed); images are billed per 512-px tile
// (imageTokens). Checked against the real usage of the calibration half
// of the vendored recordings and held to ±10% on the other half
// (adapters/providers estimate tests).
var Estimator = driver.Estimator{
	BytesPerToken:         4,
	NonASCIIRunesPerToken: 1.5,
	PerRequest:            3,
	PerMessage:            4,
	PerBlock:              1,
	ToolsBase:             12,
	PerTool:               7,
	RenderedSchemas:       true,
	PerProperty:           3,
	Image:                 imageTokens,
	Tokenizer:             Tokenizer,
	Hidden:                hiddenTokens,
}

// harmonySystem is the system message the harmony chat format of the
// gpt-oss models always carries (OpenAI's harmony format documentation),
// with its framing: 57 o200k tokens of text and 4 of <|start|>system
// <|message|>…<|end|>.
const harmonySystem = 61

// hiddenTokens is what a model's chat template adds to every request
// unseen: harmony's system message for gpt-oss.
func hiddenTokens(model string) int {
	_, name, _ := strings.Cut(model, ":")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimPrefix(strings.ToLower(name), "openai.")
	if strings.HasPrefix(name, "gpt-oss") {
		return harmonySystem
	}
	return 0
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

// EstimateUsage fills the usage of a response the server reported none
// for (000 §7.2: usage null or absent, or a stream without its usage
// chunk): input tokens by e.Estimate over the call's request, output
// tokens as one per four bytes (rounded up) of the response's text,
// reasoning, tool names and tool inputs, Estimated set, and a WARN entry
// "usage estimated: the server reported none" on c.Log naming the
// adapter, request, model and both counts. This adapter's Finish and
// adapters/openaicompat's run it when the Assembler saw no usage.
func EstimateUsage(c *driver.Call, e driver.Estimator, resp *canonical.Response) {
	u := canonical.TokenUsage{
		InputTokens:  e.Estimate(c.Request),
		OutputTokens: adapters.EstimateOutputTokens(resp.Content),
		Estimated:    true,
	}
	resp.Usage = u
	c.Log.LogAttrs(context.Background(), slog.LevelWarn, "usage estimated: the server reported none",
		slog.String("adapter", c.Adapter),
		slog.String("request_id", c.Request.RequestID),
		slog.String("model", c.Request.Model),
		slog.Int("input_tokens", u.InputTokens),
		slog.Int("output_tokens", u.OutputTokens))
}
