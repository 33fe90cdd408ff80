package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// defaultMaxTokens is sent when the request sets no output limit: the
// Messages API requires max_tokens.
const defaultMaxTokens = 4096

// minThinkingBudget is the smallest budget_tokens the API accepts.
const minThinkingBudget = 1024

// structuredToolName names the synthetic tool that carries output_schema.
const structuredToolName = "structured_output"

// wireRequest is the Messages API request body.
type wireRequest struct {
	// AnthropicVersion and AnthropicBeta are the API version and betas
	// in the body, where the cloud platforms take them (Platform); the
	// Messages API takes both as headers.
	AnthropicVersion string   `json:"anthropic_version,omitempty"`
	AnthropicBeta    []string `json:"anthropic_beta,omitempty"`
	// Model is left out on the platforms, whose URL names the model.
	Model         string          `json:"model,omitempty"`
	MaxTokens     int             `json:"max_tokens"`
	System        *wireSystem     `json:"system,omitempty"`
	Messages      []wireMessage   `json:"messages"`
	Tools         []wireTool      `json:"tools,omitempty"`
	ToolChoice    *wireToolChoice `json:"tool_choice,omitempty"`
	StopSequences []string        `json:"stop_sequences,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	TopP          *float64        `json:"top_p,omitempty"`
	Thinking      *wireThinking   `json:"thinking,omitempty"`
	OutputConfig  *outputConfig   `json:"output_config,omitempty"`
	// Stream is always sent to the Messages API; Vertex AI takes it only
	// when true and Bedrock never (its path says whether to stream).
	Stream *bool `json:"stream,omitempty"`
}

// wireSystem is the system parameter: a plain string, or text blocks when
// it carries a cache breakpoint.
type wireSystem struct {
	Text   string
	Blocks []wireContent
}

// MarshalJSON writes the string or the block array.
func (s wireSystem) MarshalJSON() ([]byte, error) {
	if s.Blocks != nil {
		return json.Marshal(s.Blocks)
	}
	return json.Marshal(s.Text)
}

type wireMessage struct {
	Role    string        `json:"role"`
	Content []wireContent `json:"content"`
}

// wireContent is any request content block; the fields used depend on
// Type. Thinking is a pointer because the API requires the field even
// when the (omitted-display) thinking text is empty.
type wireContent struct {
	Type         string           `json:"type"`
	Text         string           `json:"text,omitempty"`
	Source       *wireImageSource `json:"source,omitempty"`
	ID           string           `json:"id,omitempty"`
	Name         string           `json:"name,omitempty"`
	Input        json.RawMessage  `json:"input,omitempty"`
	ToolUseID    string           `json:"tool_use_id,omitempty"`
	Content      *resultContent   `json:"content,omitempty"`
	IsError      *bool            `json:"is_error,omitempty"`
	Thinking     *string          `json:"thinking,omitempty"`
	Signature    string           `json:"signature,omitempty"`
	Data         string           `json:"data,omitempty"`
	Citations    json.RawMessage  `json:"citations,omitempty"`
	CacheControl *cacheControl    `json:"cache_control,omitempty"`
	// raw, when set, is the whole block, sent verbatim (a server-side
	// tool block kept from an earlier response).
	raw json.RawMessage
}

type wireContentFields wireContent

// MarshalJSON writes raw when set, else the fields.
func (c wireContent) MarshalJSON() ([]byte, error) {
	if c.raw != nil {
		return c.raw, nil
	}
	return json.Marshal(wireContentFields(c))
}

// resultContent is a tool_result's content: a plain string when it is one
// text block (the common case, and the shape most clients send), else an
// array of text and image blocks.
type resultContent struct {
	Blocks []wireContent
}

// MarshalJSON writes the string or the block array.
func (r resultContent) MarshalJSON() ([]byte, error) {
	if len(r.Blocks) == 1 && r.Blocks[0].Type == "text" {
		return json.Marshal(r.Blocks[0].Text)
	}
	return json.Marshal(r.Blocks)
}

type wireImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type wireToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

// outputConfig carries the effort that guides adaptive thinking.
type outputConfig struct {
	Effort string `json:"effort,omitempty"`
}

// thinkingMode says how a model (by wire name) takes thinking: adaptive
// when it supports thinking {type: adaptive} (Claude Opus and Sonnet
// 4.6), required when it takes nothing else (Claude Opus 4.7).
func thinkingMode(wire string) (adaptive, required bool) {
	for _, p := range [...]string{"claude-opus-4-7"} {
		if strings.HasPrefix(wire, p) {
			return true, true
		}
	}
	for _, p := range [...]string{"claude-opus-4-6", "claude-sonnet-4-6"} {
		if strings.HasPrefix(wire, p) {
			return true, false
		}
	}
	return false, false
}

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// buildRequest translates req to the wire body. structured reports whether
// the synthetic output tool is in use, which the decoders need to know.
// Failures are invalid_request AdapterErrors, raised before any HTTP call.
func buildRequest(c *driver.Call, o options) ([]byte, error) {
	stream := c.Stream
	return encodeBody(c, o, wireRequest{Model: c.Model.WireName, Stream: &stream})
}

// encodeBody translates c's request to the wire body, starting from w's
// envelope (model, version, stream flag), which differs between the
// Messages API and the platforms that carry it (Platform).
func encodeBody(c *driver.Call, o options, w wireRequest) ([]byte, error) {
	req, caps := c.Request, c.Caps
	p := projector{c: c, req: req, caps: caps}

	w.MaxTokens = req.MaxOutputTokens
	w.StopSequences = req.StopSequences
	w.Temperature = req.Temperature
	w.TopP = req.TopP
	if w.MaxTokens <= 0 {
		w.MaxTokens = defaultMaxTokens
	}
	cache := caps.SupportsPromptCaching && o.Cache

	if sys := p.system(); sys != "" {
		if cache {
			w.System = &wireSystem{Blocks: []wireContent{{Type: "text", Text: sys, CacheControl: ephemeral}}}
		} else {
			w.System = &wireSystem{Text: sys}
		}
	}
	w.Messages = p.messages()

	if err := tools(&w, req); err != nil {
		return nil, err
	}
	if err := outputTool(&w, req, caps); err != nil {
		return nil, err
	}
	if cache && len(w.Tools) > 0 {
		w.Tools[len(w.Tools)-1].CacheControl = ephemeral
	}

	if req.Thinking != nil && caps.SupportsThinking {
		adaptive, required := thinkingMode(c.Model.WireName)
		if adaptive && (required || req.Thinking.BudgetTokens <= 0) {
			// The model decides how much to think, guided by the effort;
			// thinking interleaves with tool calls without a beta.
			w.Thinking = &wireThinking{Type: "adaptive"}
			if e := req.Thinking.Effort; e != "" {
				w.OutputConfig = &outputConfig{Effort: e}
			}
		} else {
			budget, maxTokens, berr := ThinkingBudget(req, w.MaxTokens)
			if berr != nil {
				return nil, driver.InvalidRequest("", "%v", berr)
			}
			w.MaxTokens = maxTokens
			w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
		}
	}

	body, err := json.Marshal(&w)
	if err != nil {
		return nil, driver.InvalidRequest("", "encoding request: %v", err)
	}
	return body, nil
}

// tools sets the tool definitions and tool_choice. Whether the model
// takes tools at all was checked before (driver.CheckCapabilities).
func tools(w *wireRequest, req *canonical.Request) error {
	for _, t := range req.Tools {
		if t.Name == structuredToolName && len(req.OutputSchema) > 0 {
			return driver.InvalidRequest("", "tool name %q is reserved for output_schema", structuredToolName)
		}
		w.Tools = append(w.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schemaOrEmpty(t.InputSchema)})
	}
	tc := req.ToolChoice
	if tc == nil || len(w.Tools) == 0 {
		return nil
	}
	switch tc.Mode {
	case canonical.ToolChoiceAuto, "":
		w.ToolChoice = &wireToolChoice{Type: "auto"}
	case canonical.ToolChoiceAny:
		w.ToolChoice = &wireToolChoice{Type: "any"}
	case canonical.ToolChoiceTool:
		w.ToolChoice = &wireToolChoice{Type: "tool", Name: tc.Name}
	case canonical.ToolChoiceNone:
		w.ToolChoice = &wireToolChoice{Type: "none"}
	default:
		return driver.InvalidRequest("", "unknown tool_choice mode %q", tc.Mode)
	}
	return nil
}

// outputTool adds the forced synthetic tool that carries output_schema
// when the request has one (the decoders then read it back: structured).
// Whether the model declares structured output was checked before
// (driver.CheckCapabilities); refusing output_schema with thinking is
// this provider's own rule.
func outputTool(w *wireRequest, req *canonical.Request, caps canonical.Capabilities) error {
	if len(req.OutputSchema) == 0 {
		return nil
	}
	if req.Thinking != nil && caps.SupportsThinking {
		return driver.InvalidRequest(canonical.CodeUnsupportedContent, "output_schema cannot be combined with thinking: the Messages API rejects forced tool use while thinking is enabled")
	}
	if !isObjectSchema(req.OutputSchema) {
		return driver.InvalidRequest(canonical.CodeInvalidToolSchema, "output_schema must be a JSON Schema with \"type\": \"object\"")
	}
	w.Tools = append(w.Tools, wireTool{
		Name:        structuredToolName,
		Description: "Return the final answer as a JSON object matching this schema.",
		InputSchema: req.OutputSchema,
	})
	w.ToolChoice = &wireToolChoice{Type: "tool", Name: structuredToolName}
	return nil
}

// ThinkingBudget picks Claude's budget_tokens for req's thinking (its
// BudgetTokens, else 1024, 4096 or 16384 for low, medium or high effort,
// at least 1024) and the max_tokens to send with it, given maxTokens,
// the one about to be sent (the request's, or the default): raised above
// the budget when the request set none, else kept, the budget cut below
// it. It fails when the request's max_output_tokens leaves no room for
// the smallest budget. Platforms that carry Claude's thinking in their
// own envelope (Bedrock's Converse) use it too.
func ThinkingBudget(req *canonical.Request, maxTokens int) (budget, newMaxTokens int, err error) {
	budget = req.Thinking.BudgetTokens
	if budget <= 0 {
		switch req.Thinking.Effort {
		case "medium":
			budget = 4096
		case "high":
			budget = 16384
		default:
			budget = minThinkingBudget
		}
	}
	budget = max(budget, minThinkingBudget)
	if budget < maxTokens {
		return budget, maxTokens, nil
	}
	if req.MaxOutputTokens <= 0 {
		return budget, budget + defaultMaxTokens, nil
	}
	if maxTokens-1 < minThinkingBudget {
		return 0, 0, fmt.Errorf("max_output_tokens %d leaves no room for the minimum thinking budget of %d tokens", maxTokens, minThinkingBudget)
	}
	return maxTokens - 1, maxTokens, nil
}

// isObjectSchema reports whether schema declares "type": "object".
func isObjectSchema(schema json.RawMessage) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(schema, &head) == nil && head.Type == "object"
}

// schemaOrEmpty returns schema, or the empty object schema the API needs
// when a tool takes no input.
func schemaOrEmpty(schema json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(schema)) == 0 || bytes.Equal(bytes.TrimSpace(schema), []byte("null")) {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return schema
}
