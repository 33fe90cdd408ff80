package openai

import (
	"encoding/json"

	"github.com/metis-llm/metis/canonical"
)

// ChatProviderRaw is the Chat dialect's round-trip data for one assistant
// message when ChatDialect.ExtraContent or ReasoningDetails is set: the JSON of
// Response.ProviderRaw, which the core stores as
// MessageMetadata.ProviderRaw[Provider]:
//
//	{"extra_content": {...},
//	 "reasoning_details": [{"type": "reasoning.text", ...}, ...],
//	 "tool_calls": {"tu_…": {"extra_content": {...}, "raw_arguments": "{\"ci"}}}
//
// Every part is optional. extra_content is a server's non-standard
// extension of the message or of one tool call, kept verbatim (Gemini's
// compatibility endpoint carries its thought signatures there and
// rejects replayed tool calls without them). Tool calls are keyed by
// canonical tool_use id.
type ChatProviderRaw struct {
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
	// ReasoningDetails are OpenRouter's reasoning_details entries of the
	// message, in order (ChatDialect.ReasoningDetails; chat_reasoning.go).
	ReasoningDetails json.RawMessage             `json:"reasoning_details,omitempty"`
	ToolCalls        map[string]*ChatToolCallRaw `json:"tool_calls,omitempty"`

	noExtra bool // read for its reasoning_details only: no extra_content goes back
}

// ChatToolCallRaw is one tool call's entry in ChatProviderRaw.
type ChatToolCallRaw struct {
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
	// RawArguments are the call's argument bytes when they did not parse
	// as a JSON object (the tool_use input is then {}). The dialect never
	// sets it; adapters/openaicompat does, for applications to repair
	// from (004 §3, fixture 008).
	RawArguments *string `json:"raw_arguments,omitempty"`
}

// Tool returns the entry for a tool_use id, creating it.
func (p *ChatProviderRaw) Tool(id string) *ChatToolCallRaw {
	if p.ToolCalls == nil {
		p.ToolCalls = map[string]*ChatToolCallRaw{}
	}
	t := p.ToolCalls[id]
	if t == nil {
		t = &ChatToolCallRaw{}
		p.ToolCalls[id] = t
	}
	return t
}

// Encode returns the JSON of p (without HTML escaping), or nil when p
// holds nothing.
func (p *ChatProviderRaw) Encode() (json.RawMessage, error) {
	if len(p.ExtraContent) == 0 && len(p.ReasoningDetails) == 0 && len(p.ToolCalls) == 0 {
		return nil, nil
	}
	return marshalBody(p)
}

// replayedRaw returns the ChatProviderRaw BuildRequest sends back with an
// assistant message: none unless ExtraContent or ReasoningDetails is set
// and the message came from this provider (another provider's data is
// never read, 001 §6.5).
// An entry that does not parse is an error, for the caller to log.
func (d ChatDialect) replayedRaw(m canonical.Message) (*ChatProviderRaw, error) {
	if !d.ExtraContent && !d.ReasoningDetails || m.Metadata.Provider != d.Provider {
		return nil, nil
	}
	raw := m.Metadata.ProviderRaw[d.Provider]
	if !present(raw) {
		return nil, nil
	}
	var p ChatProviderRaw
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	p.noExtra = !d.ExtraContent
	if !d.ReasoningDetails {
		p.ReasoningDetails = nil
	}
	return &p, nil
}

// toolExtra returns the extra_content kept for a tool_use id, or nil.
func (p *ChatProviderRaw) toolExtra(id string) json.RawMessage {
	if p == nil || p.noExtra || p.ToolCalls[id] == nil || !present(p.ToolCalls[id].ExtraContent) {
		return nil
	}
	return p.ToolCalls[id].ExtraContent
}
