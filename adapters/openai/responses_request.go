package openai

import (
	"encoding/json"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// responsesDialect is the Responses API wire dialect (POST
// {base}/v1/responses), the openai adapter's default.
type responsesDialect struct {
	// provider is the adapter name: tool-id map key, error provider, and
	// the Metadata.Provider whose signatures and ProviderRaw are replayed.
	provider string
	// reasoning marks a reasoning model: encrypted reasoning is requested
	// (include) and sampling parameters the API rejects are left out.
	reasoning bool
	// parallelToolCalls is the "parallel_tool_calls" option, sent when
	// the request has tools.
	parallelToolCalls *bool
	// tools are the call's tools (WithTools), for the decoders.
	tools []canonical.ToolDefinition
}

// URL returns the Responses endpoint under base.
func (d responsesDialect) URL(base string) string {
	return endpoint(base, defaultAPIPrefix, "/responses")
}

// Responses request body. store is always false: metis keeps the history
// itself and replays reasoning through encrypted_content, so nothing is
// left on OpenAI's side.
type responsesRequest struct {
	Model             string              `json:"model"`
	Instructions      string              `json:"instructions,omitempty"`
	Input             []any               `json:"input"`
	Tools             []responsesTool     `json:"tools,omitempty"`
	ToolChoice        any                 `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool               `json:"parallel_tool_calls,omitempty"`
	MaxOutputTokens   int                 `json:"max_output_tokens,omitempty"`
	Temperature       *float64            `json:"temperature,omitempty"`
	TopP              *float64            `json:"top_p,omitempty"`
	Text              *responsesText      `json:"text,omitempty"`
	Reasoning         *responsesReasoning `json:"reasoning,omitempty"`
	Store             bool                `json:"store"`
	Include           []string            `json:"include,omitempty"`
	Stream            bool                `json:"stream,omitempty"`
}

// responsesTool always sends strict: the Responses API defaults it to
// true, which would reject ordinary schemas.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type responsesText struct {
	Format responsesFormat `json:"format"`
}

type responsesFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type responsesReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// Input items.
type (
	inMessage struct {
		Type    string `json:"type"`
		ID      string `json:"id,omitempty"`
		Role    string `json:"role"`
		Status  string `json:"status,omitempty"`
		Content []any  `json:"content"`
	}
	inText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	outText struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Annotations []any  `json:"annotations"`
	}
	inImage struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
		Detail   string `json:"detail"`
	}
	inFunctionCall struct {
		Type      string `json:"type"`
		ID        string `json:"id,omitempty"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	inFunctionOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
	inReasoning struct {
		Type             string      `json:"type"`
		ID               string      `json:"id,omitempty"`
		Summary          []inSummary `json:"summary"`
		EncryptedContent string      `json:"encrypted_content,omitempty"`
	}
	inSummary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
)

// BuildRequest maps req to a Responses body:
//
//   - instructions: the system prompt and SYSTEM messages joined "\n\n";
//   - user text and images become a message of input_text and
//     input_image (a data URI or the URL, detail auto) parts;
//   - tool results become function_call_output items (call_id from the
//     tool-id map, "Error: "-prefixed when is_error);
//   - an assistant message becomes, block by block, reasoning items,
//     assistant messages of output_text and function_call items. Thinking
//     is replayed only from messages this provider produced and only with
//     its encrypted_content (ThinkingBlock.Signature); the item ids
//     recorded in ProviderRaw (see providerRaw) go back on the reasoning,
//     message and function_call items so the API can pair each reasoning
//     item with the item that followed it. Other thinking is dropped
//     with the lossy-projection WARN;
//   - tools with strict as the ToolDefinition says (StrictSchema applied
//     when true), tool_choice auto/required/none/{type:function,name},
//     max_output_tokens, temperature, top_p, text.format json_schema for
//     output_schema, reasoning {effort, summary:auto} when req.Thinking is
//     set on a reasoning model;
//   - store false always, and include ["reasoning.encrypted_content"] for
//     reasoning models.
//
// The Responses API has no stop sequences or seed, and reasoning models
// take no temperature or top_p: those are left out with a WARN.
func (d responsesDialect) BuildRequest(c *driver.Call) ([]byte, error) {
	req, log := c.Request, c.Log
	ids := wireIDs(req)
	body := responsesRequest{
		Model:           c.Model.WireName,
		Instructions:    systemText(c),
		Input:           []any{},
		MaxOutputTokens: req.MaxOutputTokens,
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		Stream:          req.Stream,
	}
	if len(req.StopSequences) > 0 {
		log.Warn("openai responses: stop sequences are not supported and were left out", "adapter", d.provider, "session_id", req.SessionID)
	}
	if req.Seed != nil {
		log.Warn("openai responses: seed is not supported and was left out", "adapter", d.provider, "session_id", req.SessionID)
	}
	if d.reasoning {
		body.Include = []string{"reasoning.encrypted_content"}
		if req.Thinking != nil {
			body.Reasoning = &responsesReasoning{Effort: effort(req.Thinking), Summary: "auto"}
		}
		if body.Temperature != nil || body.TopP != nil {
			log.Warn("openai responses: reasoning models take no temperature or top_p; left out", "adapter", d.provider, "session_id", req.SessionID)
			body.Temperature, body.TopP = nil, nil
		}
	}
	for _, m := range req.Messages {
		var err error
		switch m.Role {
		case canonical.RoleSystem:
			continue // in instructions
		case canonical.RoleUser, canonical.RoleTool:
			body.Input = d.userItems(body.Input, req, m, ids, c)
		case canonical.RoleAssistant:
			body.Input, err = d.assistantItems(body.Input, req, m, ids, c)
		default:
			err = driver.InvalidRequest(canonical.CodeInvalidHistory, "message %s has unknown role %q", m.ID, m.Role)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, t := range req.Tools {
		params, err := toolParameters(t, t.Strict)
		if err != nil {
			return nil, driver.InvalidRequest(canonical.CodeInvalidToolSchema, "tool %q: %v", t.Name, err)
		}
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict})
	}
	if len(body.Tools) > 0 {
		body.ToolChoice = responsesToolChoice(req.ToolChoice)
		body.ParallelToolCalls = d.parallelToolCalls
	}
	if len(req.OutputSchema) > 0 {
		schema, err := StrictSchema(req.OutputSchema)
		if err != nil {
			return nil, driver.InvalidRequest(canonical.CodeInvalidToolSchema, "output_schema: %v", err)
		}
		body.Text = &responsesText{Format: responsesFormat{Type: "json_schema", Name: "output", Schema: schema, Strict: true}}
	}
	out, err := marshalBody(body)
	if err != nil {
		return nil, driver.InvalidRequest("", "encoding request: %v", err)
	}
	return out, nil
}

func responsesToolChoice(c *canonical.ToolChoice) any {
	if c == nil {
		return nil
	}
	switch c.Mode {
	case canonical.ToolChoiceAny:
		return "required"
	case canonical.ToolChoiceNone:
		return "none"
	case canonical.ToolChoiceTool:
		return map[string]string{"type": "function", "name": c.Name}
	}
	return "auto"
}

// userItems appends a USER or TOOL message: its tool results as
// function_call_output items, then a user message of the rest.
func (d responsesDialect) userItems(out []any, req *canonical.Request, m canonical.Message, ids canonical.ToolIDMap, c *driver.Call) []any {
	var parts []any
	for _, b := range m.Content {
		switch v := b.(type) {
		case canonical.ToolResultBlock:
			out = append(out, inFunctionOutput{
				Type:   "function_call_output",
				CallID: ids.Wire(d.provider, v.ToolUseID),
				Output: toolResultText(c, &m, v),
			})
		case canonical.TextBlock:
			if v.Text != "" {
				parts = append(parts, inText{Type: "input_text", Text: v.Text})
			}
		case canonical.ImageBlock:
			url, ok := imageURL(v)
			if !ok {
				c.Drop(&m, b.Type(), "image source "+v.Source.Kind+" cannot be sent; only base64 data and URLs can")
				continue
			}
			parts = append(parts, inImage{Type: "input_image", ImageURL: url, Detail: "auto"})
		default:
			c.Drop(&m, b.Type(), "the Responses API cannot carry this block in a "+string(m.Role)+" message")
		}
	}
	if len(parts) > 0 {
		out = append(out, inMessage{Type: "message", Role: "user", Content: parts})
	}
	return out
}

// assistantItems appends the items of an ASSISTANT message.
func (d responsesDialect) assistantItems(out []any, req *canonical.Request, m canonical.Message, ids canonical.ToolIDMap, c *driver.Call) ([]any, error) {
	sid := sessionOf(req, m)
	own := m.Metadata.Provider == d.provider
	var raw providerRaw
	if own {
		if r, ok := m.Metadata.ProviderRaw[d.provider]; ok && len(r) > 0 {
			if err := json.Unmarshal(r, &raw); err != nil {
				c.Log.Warn("openai responses: unreadable provider_raw; item ids not replayed", "adapter", d.provider, "session_id", sid, "message_id", m.ID, "error", err.Error())
				raw = providerRaw{}
			}
		}
	}
	item := func(i int, typ string) rawItem {
		it := raw.Items[itoa(i)]
		if it.Type != typ {
			return rawItem{}
		}
		return it
	}
	start := len(out) // text blocks merge only within this message
	for i, b := range m.Content {
		switch v := b.(type) {
		case canonical.ThinkingBlock:
			switch {
			case !own:
				c.Drop(&m, b.Type(), "reasoning produced by another provider cannot be sent to OpenAI")
				continue
			case v.Signature == "":
				c.Drop(&m, b.Type(), "reasoning without encrypted_content cannot be replayed with store=false")
				continue
			}
			it := item(i, "reasoning")
			out = append(out, inReasoning{Type: "reasoning", ID: it.ID, Summary: splitSummary(v.Text, it.Summary), EncryptedContent: v.Signature})
		case canonical.TextBlock:
			if v.Text == "" {
				continue
			}
			id := item(i, "message").ID
			part := outText{Type: "output_text", Text: v.Text, Annotations: []any{}}
			if n := len(out); n > start {
				if prev, ok := out[n-1].(inMessage); ok && prev.Role == "assistant" && prev.ID == id {
					prev.Content = append(prev.Content, part)
					out[n-1] = prev
					continue
				}
			}
			msg := inMessage{Type: "message", ID: id, Role: "assistant", Content: []any{part}}
			if id != "" {
				msg.Status = "completed"
			}
			out = append(out, msg)
		case canonical.ToolUseBlock:
			args, ok := toolArguments(v.Input)
			if !ok {
				return nil, driver.InvalidRequest(canonical.CodeToolInputInvalid, "message %s: tool_use %s input is not valid JSON", m.ID, v.ID)
			}
			out = append(out, inFunctionCall{
				Type:      "function_call",
				ID:        item(i, "function_call").ID,
				CallID:    ids.Wire(d.provider, v.ID),
				Name:      v.Name,
				Arguments: args,
			})
		default:
			c.Drop(&m, b.Type(), "the Responses API cannot carry this block in an assistant message")
		}
	}
	return out, nil
}

// splitSummary rebuilds a reasoning item's summary parts from the
// thinking text, which holds them joined with "\n\n", using the part
// lengths recorded in ProviderRaw. Text that does not match the lengths
// (edited, or from an older record) goes back as a single part.
func splitSummary(text string, lens []int) []inSummary {
	if text == "" {
		return []inSummary{}
	}
	if len(lens) > 1 {
		parts := make([]inSummary, 0, len(lens))
		pos := 0
		for i, n := range lens {
			if i > 0 {
				if !strings.HasPrefix(text[pos:], summarySep) {
					parts = nil
					break
				}
				pos += len(summarySep)
			}
			if n < 0 || pos+n > len(text) {
				parts = nil
				break
			}
			parts = append(parts, inSummary{Type: "summary_text", Text: text[pos : pos+n]})
			pos += n
		}
		if parts != nil && pos == len(text) {
			return parts
		}
	}
	return []inSummary{{Type: "summary_text", Text: text}}
}
