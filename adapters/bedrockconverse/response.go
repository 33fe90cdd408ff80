package bedrockconverse

import (
	"bytes"
	"encoding/json"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// wireResponse is a Converse answer.
type wireResponse struct {
	Output *struct {
		Message *struct {
			Role    string         `json:"role"`
			Content []contentBlock `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason string     `json:"stopReason"`
	Usage      *wireUsage `json:"usage"`
}

// contentBlock is a response content block.
type contentBlock struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ReasoningContent *reasoningDelta `json:"reasoningContent"`
}

// reasoningDelta is a reasoningContent member of a stream delta; a
// response block's is reasoningText or redactedContent.
type reasoningDelta struct {
	Text            *string        `json:"text"`
	Signature       *string        `json:"signature"`
	RedactedContent *string        `json:"redactedContent"`
	ReasoningText   *reasoningText `json:"reasoningText"`
}

// wireUsage is Converse's usage; cacheReadInputTokenCount is an older
// spelling some answers carry next to (or instead of) the newer.
type wireUsage struct {
	InputTokens              int  `json:"inputTokens"`
	OutputTokens             int  `json:"outputTokens"`
	CacheReadInputTokens     *int `json:"cacheReadInputTokens"`
	CacheReadInputTokenCount int  `json:"cacheReadInputTokenCount"`
	CacheWriteInputTokens    *int `json:"cacheWriteInputTokens"`
	CacheWriteInputTokenCnt  int  `json:"cacheWriteInputTokenCount"`
}

// canonical returns the usage as metis counts it.
func (u *wireUsage) canonical() canonical.TokenUsage {
	t := canonical.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.CacheReadInputTokenCount, CacheCreationInputTokens: u.CacheWriteInputTokenCnt}
	if u.CacheReadInputTokens != nil {
		t.CachedInputTokens = *u.CacheReadInputTokens
	}
	if u.CacheWriteInputTokens != nil {
		t.CacheCreationInputTokens = *u.CacheWriteInputTokens
	}
	return t
}

// DecodeBody decodes a Converse answer.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	var r wireResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return driver.InvalidResponse(p.name, err, "decoding response body: %v", err)
	}
	if r.Output == nil || r.Output.Message == nil {
		return driver.InvalidResponse(p.name, nil, "response body is not a Converse answer: no output.message")
	}
	a.Start()
	for i, b := range r.Output.Message.Content {
		switch {
		case b.Text != nil:
			a.TextDelta(i, *b.Text)
		case b.ToolUse != nil:
			if b.ToolUse.ToolUseID == "" || b.ToolUse.Name == "" {
				return driver.InvalidResponse(p.name, nil, "content block %d: toolUse without toolUseId or name", i)
			}
			a.ToolStart(i, b.ToolUse.ToolUseID, b.ToolUse.Name)
			if in := compactObject(b.ToolUse.Input); in != nil {
				a.ToolInputFinal(i, in)
			}
		case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
			rt := b.ReasoningContent.ReasoningText
			a.ThinkingDelta(i, rt.Text)
			if rt.Signature != "" {
				a.ThinkingSignature(i, rt.Signature)
			}
		case b.ReasoningContent != nil && b.ReasoningContent.RedactedContent != nil:
			a.RedactedThinking(i, *b.ReasoningContent.RedactedContent)
		default:
			continue // block types added later (citations, guard content) are not canonical
		}
		a.EndBlock(i)
	}
	if r.Usage != nil {
		a.SetUsage(r.Usage.canonical())
	}
	a.Finish(mapStopReason(r.StopReason), r.StopReason)
	return nil
}

// mapStopReason maps Converse's stopReason (see the package doc).
func mapStopReason(s string) canonical.StopReason {
	switch s {
	case "tool_use":
		return canonical.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return canonical.StopMaxTokens
	case "stop_sequence":
		return canonical.StopStopSequence
	case "guardrail_intervened", "content_filtered":
		return canonical.StopContentFilter
	}
	return canonical.StopEndTurn
}

// compactObject returns b compacted when it is a JSON object, else nil,
// so that streamed and non-streamed calls give identical inputs.
func compactObject(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return nil
	}
	return buf.Bytes()
}
