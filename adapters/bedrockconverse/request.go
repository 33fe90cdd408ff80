package bedrockconverse

import (
	"encoding/json"
	"net/http"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// defaultMaxTokens is the maxTokens sent with thinking when the request
// sets none, as the Anthropic adapter's max_tokens.
const defaultMaxTokens = 4096

// wireRequest is the Converse request body.
type wireRequest struct {
	Messages        []wireMessage    `json:"messages"`
	System          []wireText       `json:"system,omitempty"`
	InferenceConfig *inferenceConfig `json:"inferenceConfig,omitempty"`
	ToolConfig      *toolConfig      `json:"toolConfig,omitempty"`
	// AdditionalModelRequestFields are the model's own fields (Claude's
	// thinking).
	AdditionalModelRequestFields map[string]any `json:"additionalModelRequestFields,omitempty"`
}

type wireText struct {
	Text string `json:"text"`
}

type inferenceConfig struct {
	MaxTokens     int      `json:"maxTokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"topP,omitempty"`
	StopSequences []string `json:"stopSequences,omitempty"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is a content block: exactly one member is set.
type wireBlock struct {
	Text             *string          `json:"text,omitempty"`
	Image            *wireImage       `json:"image,omitempty"`
	ToolUse          *wireToolUse     `json:"toolUse,omitempty"`
	ToolResult       *wireToolResult  `json:"toolResult,omitempty"`
	ReasoningContent *wireReasoning   `json:"reasoningContent,omitempty"`
	JSON             *json.RawMessage `json:"json,omitempty"`
}

type wireImage struct {
	Format string `json:"format"`
	Source struct {
		// Bytes is base64, as JSON carries an AWS blob.
		Bytes string `json:"bytes"`
	} `json:"source"`
}

type wireToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type wireToolResult struct {
	ToolUseID string      `json:"toolUseId"`
	Content   []wireBlock `json:"content"`
	Status    string      `json:"status,omitempty"`
}

type wireReasoning struct {
	ReasoningText   *reasoningText `json:"reasoningText,omitempty"`
	RedactedContent string         `json:"redactedContent,omitempty"`
}

type reasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

type toolConfig struct {
	Tools      []wireTool      `json:"tools"`
	ToolChoice *wireToolChoice `json:"toolChoice,omitempty"`
}

type wireTool struct {
	ToolSpec toolSpec `json:"toolSpec"`
}

type toolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema struct {
		JSON json.RawMessage `json:"json"`
	} `json:"inputSchema"`
}

type wireToolChoice struct {
	Auto *struct{}    `json:"auto,omitempty"`
	Any  *struct{}    `json:"any,omitempty"`
	Tool *namedChoice `json:"tool,omitempty"`
}

type namedChoice struct {
	Name string `json:"name"`
}

// Encode builds the Converse body once for all attempts.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	body, err := encodeBody(c)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	op := "converse"
	h.Set("Accept", "application/json")
	if c.Stream {
		op = "converse-stream"
		h.Set("Accept", bedrock.EventStreamType)
	}
	return &driver.Request{URL: p.Base + bedrock.ModelPath(c.Model.WireName, op), Header: h, Body: body}, nil
}

// encodeBody maps c's request to the Converse body.
func encodeBody(c *driver.Call) ([]byte, error) {
	req := c.Request
	var w wireRequest
	if sys := c.SystemText("only text can be hoisted into the system prompt"); sys != "" {
		w.System = []wireText{{Text: sys}}
	}
	pr := projector{c: c}
	w.Messages = pr.messages()
	ic := inferenceConfig{MaxTokens: req.MaxOutputTokens, Temperature: req.Temperature, TopP: req.TopP, StopSequences: req.StopSequences}
	if req.Thinking != nil && c.Caps.SupportsThinking {
		if ic.MaxTokens <= 0 {
			ic.MaxTokens = defaultMaxTokens
		}
		budget, maxTokens, err := anthropic.ThinkingBudget(req, ic.MaxTokens)
		if err != nil {
			return nil, driver.InvalidRequest("", "%v", err)
		}
		ic.MaxTokens = maxTokens
		w.AdditionalModelRequestFields = map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}}
	}
	if ic.MaxTokens > 0 || ic.Temperature != nil || ic.TopP != nil || len(ic.StopSequences) > 0 {
		w.InferenceConfig = &ic
	}
	tc, err := tools(req, pr.toolBlocks)
	if err != nil {
		return nil, err
	}
	w.ToolConfig = tc
	body, err := json.Marshal(&w)
	if err != nil {
		return nil, driver.InvalidRequest("", "encoding request: %v", err)
	}
	return body, nil
}

// tools builds toolConfig; history says whether the messages hold tool
// blocks, which Converse accepts only with a toolConfig.
func tools(req *canonical.Request, history bool) (*toolConfig, error) {
	if len(req.Tools) == 0 {
		return nil, nil
	}
	tc := &toolConfig{}
	for _, t := range req.Tools {
		var spec toolSpec
		spec.Name, spec.Description = t.Name, t.Description
		spec.InputSchema.JSON = t.InputSchema // required by validation
		tc.Tools = append(tc.Tools, wireTool{ToolSpec: spec})
	}
	if req.ToolChoice == nil {
		return tc, nil
	}
	switch req.ToolChoice.Mode {
	case canonical.ToolChoiceAuto, "":
		tc.ToolChoice = &wireToolChoice{Auto: &struct{}{}}
	case canonical.ToolChoiceAny:
		tc.ToolChoice = &wireToolChoice{Any: &struct{}{}}
	case canonical.ToolChoiceTool:
		tc.ToolChoice = &wireToolChoice{Tool: &namedChoice{Name: req.ToolChoice.Name}}
	case canonical.ToolChoiceNone:
		if !history {
			return nil, nil
		}
	default:
		return nil, driver.InvalidRequest("", "unknown tool_choice mode %q", req.ToolChoice.Mode)
	}
	return tc, nil
}

// projector maps canonical history to Converse messages, dropping with
// the lossy-projection WARN what the wire cannot carry.
type projector struct {
	c *driver.Call
	// answered holds the canonical ids of tool calls some message answers.
	answered map[string]bool
	// toolBlocks is set once a toolUse or toolResult block is sent.
	toolBlocks bool
}

// messages maps USER, ASSISTANT and TOOL messages, merging consecutive
// messages of one wire role (Converse wants them alternating).
func (p *projector) messages() []wireMessage {
	req := p.c.Request
	p.answered = map[string]bool{}
	for i := range req.Messages {
		for _, b := range req.Messages[i].Content {
			if r, ok := b.(canonical.ToolResultBlock); ok {
				p.answered[r.ToolUseID] = true
			}
		}
	}
	out := make([]wireMessage, 0, len(req.Messages))
	for i := range req.Messages {
		m := &req.Messages[i]
		var role string
		switch m.Role {
		case canonical.RoleUser, canonical.RoleTool:
			role = "user"
		case canonical.RoleAssistant:
			role = "assistant"
		default:
			continue // SYSTEM is hoisted
		}
		content := p.content(m, role)
		if len(content) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, content...)
		} else {
			out = append(out, wireMessage{Role: role, Content: content})
		}
	}
	for i := range out {
		if out[i].Role == "user" {
			resultsFirst(out[i].Content)
		}
	}
	return out
}

// resultsFirst moves toolResult blocks ahead of a user message's other
// blocks, keeping both groups in order: Claude rejects tool results that
// follow other content.
func resultsFirst(c []wireBlock) {
	tmp := make([]wireBlock, 0, len(c))
	for _, b := range c {
		if b.ToolResult != nil {
			tmp = append(tmp, b)
		}
	}
	for _, b := range c {
		if b.ToolResult == nil {
			tmp = append(tmp, b)
		}
	}
	copy(c, tmp)
}

// content maps one message's blocks for a message of wire role.
func (p *projector) content(m *canonical.Message, role string) []wireBlock {
	out := make([]wireBlock, 0, len(m.Content))
	own := m.Metadata.Provider == p.c.Adapter
	for _, b := range m.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" {
				out = append(out, text(b.Text))
			}
		case canonical.ImageBlock:
			if role != "user" {
				p.c.Drop(m, b.Type(), "images are accepted only in user content")
			} else if img, ok := p.image(m, b); ok {
				out = append(out, wireBlock{Image: img})
			}
		case canonical.ToolUseBlock:
			switch {
			case role != "assistant":
				p.c.Drop(m, b.Type(), "toolUse is accepted only in assistant content")
			case !p.answered[b.ID]:
				p.c.Drop(m, b.Type(), "toolUse has no toolResult")
			default:
				in := b.Input
				if len(in) == 0 {
					in = json.RawMessage("{}")
				}
				p.toolBlocks = true
				out = append(out, wireBlock{ToolUse: &wireToolUse{ToolUseID: p.wireID(b.ID), Name: b.Name, Input: in}})
			}
		case canonical.ToolResultBlock:
			if role != "user" {
				p.c.Drop(m, b.Type(), "toolResult is accepted only in user content")
				continue
			}
			r := &wireToolResult{ToolUseID: p.wireID(b.ToolUseID), Status: "success", Content: p.resultContent(m, b.Content)}
			if b.IsError {
				r.Status = "error"
			}
			if len(r.Content) == 0 {
				// Converse requires content; an empty result is an
				// empty text.
				r.Content = []wireBlock{text("")}
			}
			p.toolBlocks = true
			out = append(out, wireBlock{ToolResult: r})
		case canonical.ThinkingBlock:
			switch {
			case role != "assistant":
				p.c.Drop(m, b.Type(), "reasoning is accepted only in assistant content")
			case !own:
				p.c.Drop(m, b.Type(), "thinking from provider "+quoteOr(m.Metadata.Provider, "unknown")+" has no Bedrock signature")
			case b.Signature == "":
				p.c.Drop(m, b.Type(), "reasoning without a signature is rejected by the API")
			default:
				out = append(out, wireBlock{ReasoningContent: &wireReasoning{ReasoningText: &reasoningText{Text: b.Text, Signature: b.Signature}}})
			}
		case canonical.RedactedThinkingBlock:
			switch {
			case role != "assistant":
				p.c.Drop(m, b.Type(), "redacted reasoning is accepted only in assistant content")
			case !own:
				p.c.Drop(m, b.Type(), "redacted_thinking from provider "+quoteOr(m.Metadata.Provider, "unknown")+" is opaque to Bedrock")
			default:
				out = append(out, wireBlock{ReasoningContent: &wireReasoning{RedactedContent: b.Data}})
			}
		default:
			p.c.Drop(m, b.Type(), "block type has no Converse representation")
		}
	}
	return out
}

// resultContent maps a tool result's content (text and images).
func (p *projector) resultContent(m *canonical.Message, bs canonical.Blocks) []wireBlock {
	var out []wireBlock
	for _, b := range bs {
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" {
				out = append(out, text(b.Text))
			}
		case canonical.ImageBlock:
			if img, ok := p.image(m, b); ok {
				out = append(out, wireBlock{Image: img})
			}
		default:
			p.c.Drop(m, b.Type(), "toolResult content may hold only text and images")
		}
	}
	return out
}

// image maps a base64 image, or drops it when the model or the wire
// cannot take it.
func (p *projector) image(m *canonical.Message, b canonical.ImageBlock) (*wireImage, bool) {
	if !p.c.Caps.SupportsImages {
		p.c.Drop(m, b.Type(), "model does not accept images")
		return nil, false
	}
	if b.Source.Kind != canonical.ImageBase64 {
		p.c.Drop(m, b.Type(), "Converse takes images as bytes only, not "+quoteOr(string(b.Source.Kind), "(none)")+" sources")
		return nil, false
	}
	format, ok := imageFormats[b.MediaType]
	if !ok || !p.c.Caps.AcceptsImageType(b.MediaType) {
		p.c.Drop(m, b.Type(), "Converse does not accept media type "+quoteOr(b.MediaType, "(none)"))
		return nil, false
	}
	img := &wireImage{Format: format}
	img.Source.Bytes = b.Source.Data
	return img, true
}

func (p *projector) wireID(canonicalID string) string {
	return p.c.Request.ToolIDs.Wire(p.c.Adapter, canonicalID)
}

func text(s string) wireBlock { return wireBlock{Text: &s} }

func quoteOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return `"` + s + `"`
}
