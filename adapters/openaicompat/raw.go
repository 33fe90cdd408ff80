package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"

	"github.com/metis-llm/metis/canonical"
)

// providerRaw is this adapter's opaque round-trip data, the JSON of
// Response.ProviderRaw described in the package doc. Tool calls are keyed
// by canonical tool_use id. A tool_use whose arguments did not parse has
// input {} (a canonical input is always an object) and its bytes here,
// where an application repairs from (004 §3, fixture 008).
type providerRaw struct {
	ExtraContent json.RawMessage         `json:"extra_content,omitempty"`
	ToolCalls    map[string]*toolCallRaw `json:"tool_calls,omitempty"`
}

// toolCallRaw is one tool call's entry in providerRaw.
type toolCallRaw struct {
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
	RawArguments *string         `json:"raw_arguments,omitempty"`
}

// tool returns the entry for a tool_use id, creating it.
func (p *providerRaw) tool(id string) *toolCallRaw {
	if p.ToolCalls == nil {
		p.ToolCalls = map[string]*toolCallRaw{}
	}
	t := p.ToolCalls[id]
	if t == nil {
		t = &toolCallRaw{}
		p.ToolCalls[id] = t
	}
	return t
}

// encode returns the JSON form, or nil when there is nothing to keep.
func (p *providerRaw) encode() json.RawMessage {
	if len(p.ExtraContent) == 0 && len(p.ToolCalls) == 0 {
		return nil
	}
	b, err := marshal(p)
	if err != nil {
		return nil
	}
	return b
}

// present reports whether raw holds a JSON value other than null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// replayExtras adds to a built body the extra_content this provider gave
// earlier assistant messages and tool calls, read from their
// MessageMetadata.ProviderRaw[Name()] when MessageMetadata.Provider is this
// adapter (other providers' entries are never read, 001 §6.5). Tool calls
// are found by their wire id; messages by position among the assistant
// messages the dialect sends (those with text or tool calls). Without any
// extra_content the body is returned unchanged.
func (a *Adapter) replayExtras(body []byte, req *canonical.Request) ([]byte, error) {
	name := a.Name()
	var (
		msgExtras  map[int]json.RawMessage    // by position among wire assistant messages
		toolExtras map[string]json.RawMessage // by wire tool call id
	)
	pos := 0
	for _, m := range req.Messages {
		if m.Role != canonical.RoleAssistant || !sentAsAssistant(m) {
			continue
		}
		k := pos
		pos++
		raw := m.Metadata.ProviderRaw[name]
		if m.Metadata.Provider != name || !present(raw) {
			continue
		}
		var pr providerRaw
		if err := json.Unmarshal(raw, &pr); err != nil {
			a.rt.Config.Log().LogAttrs(context.Background(), slog.LevelWarn, "openaicompat: ignoring unreadable provider_raw",
				slog.String("adapter", name), slog.String("message_id", m.ID), slog.String("error", err.Error()))
			continue
		}
		if present(pr.ExtraContent) {
			if msgExtras == nil {
				msgExtras = map[int]json.RawMessage{}
			}
			msgExtras[k] = pr.ExtraContent
		}
		for _, tu := range m.Content.ToolUses() {
			if t := pr.ToolCalls[tu.ID]; t != nil && present(t.ExtraContent) {
				if toolExtras == nil {
					toolExtras = map[string]json.RawMessage{}
				}
				toolExtras[req.ToolIDs.Wire(name, tu.ID)] = t.ExtraContent
			}
		}
	}
	if msgExtras == nil && toolExtras == nil {
		return body, nil
	}
	return patchExtras(body, msgExtras, toolExtras)
}

// sentAsAssistant reports whether the dialect sends m as a wire message:
// it does when m has text or tool calls (thinking alone is dropped).
func sentAsAssistant(m canonical.Message) bool {
	for _, b := range m.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" {
				return true
			}
		case canonical.ToolUseBlock:
			return true
		}
	}
	return false
}

// patchExtras sets extra_content on the body's assistant messages and
// tool calls. Only the patched levels are re-encoded; the values are kept
// verbatim (object keys of re-encoded levels come out sorted).
func patchExtras(body []byte, msgExtras map[int]json.RawMessage, toolExtras map[string]json.RawMessage) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		return nil, err
	}
	pos := 0
	for _, m := range msgs {
		var role string
		_ = json.Unmarshal(m["role"], &role)
		if role != "assistant" {
			continue
		}
		if e, ok := msgExtras[pos]; ok {
			m["extra_content"] = e
		}
		pos++
		if len(toolExtras) == 0 || !present(m["tool_calls"]) {
			continue
		}
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(m["tool_calls"], &calls); err != nil {
			return nil, err
		}
		for _, tc := range calls {
			var id string
			_ = json.Unmarshal(tc["id"], &id)
			if e, ok := toolExtras[id]; ok {
				tc["extra_content"] = e
			}
		}
		enc, err := marshal(calls)
		if err != nil {
			return nil, err
		}
		m["tool_calls"] = enc
	}
	enc, err := marshal(msgs)
	if err != nil {
		return nil, err
	}
	top["messages"] = enc
	return marshal(top)
}

// marshal encodes v without HTML escaping and without a trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
