package anthropic

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// projector translates canonical history to Messages API content,
// dropping with the lossy-projection WARN what the wire cannot carry.
type projector struct {
	c    *driver.Call
	req  *canonical.Request
	caps canonical.Capabilities
	// answered holds the canonical ids of tool calls some message answers.
	answered map[string]bool
}

// system returns the system parameter: the request's system prompt and
// the text of every SYSTEM message, joined with "\n\n".
func (p *projector) system() string {
	var parts []string
	if s := p.req.SystemPrompt; s != "" {
		parts = append(parts, s)
	}
	for i := range p.req.Messages {
		m := &p.req.Messages[i]
		if m.Role != canonical.RoleSystem {
			continue
		}
		for _, b := range m.Content {
			if _, ok := b.(canonical.TextBlock); !ok {
				p.drop(m, b.Type(), "only text can be hoisted into the system prompt")
			}
		}
		if t := m.Content.Text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// messages translates USER, ASSISTANT and TOOL messages, merging
// consecutive messages of one wire role for strict alternation. Messages
// left empty after dropping are skipped.
func (p *projector) messages() []wireMessage {
	p.answered = map[string]bool{}
	for i := range p.req.Messages {
		for _, b := range p.req.Messages[i].Content {
			if r, ok := b.(canonical.ToolResultBlock); ok {
				p.answered[r.ToolUseID] = true
			}
		}
	}
	out := make([]wireMessage, 0, len(p.req.Messages))
	for i := range p.req.Messages {
		m := &p.req.Messages[i]
		var role string
		switch m.Role {
		case canonical.RoleUser, canonical.RoleTool:
			role = "user"
		case canonical.RoleAssistant:
			role = "assistant"
		default:
			continue // SYSTEM is hoisted; unknown roles were rejected by validation
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
			toolResultsFirst(out[i].Content)
		}
	}
	return out
}

// toolResultsFirst moves tool_result blocks ahead of the other blocks of a
// user message, keeping both groups in order: the API rejects a user
// message whose tool results follow other content.
func toolResultsFirst(c []wireContent) {
	sorted := true
	seenOther := false
	for _, b := range c {
		if b.Type != "tool_result" {
			seenOther = true
		} else if seenOther {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	tmp := make([]wireContent, 0, len(c))
	for _, b := range c {
		if b.Type == "tool_result" {
			tmp = append(tmp, b)
		}
	}
	for _, b := range c {
		if b.Type != "tool_result" {
			tmp = append(tmp, b)
		}
	}
	copy(c, tmp)
}

// content translates one message's blocks for a message of wire role.
func (p *projector) content(m *canonical.Message, role string) []wireContent {
	out := make([]wireContent, 0, len(m.Content))
	own := m.Metadata.Provider == p.c.Adapter
	var raw providerRaw
	if own && role == "assistant" {
		raw = parseRaw(m.Metadata.ProviderRaw[p.c.Adapter])
	}
	server := raw.ServerBlocks
	for i, b := range m.Content {
		// Server-side tool blocks go back where they stood.
		for len(server) > 0 && server[0].Before <= i {
			out = append(out, wireContent{raw: server[0].Block})
			server = server[1:]
		}
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" { // the API rejects empty text blocks
				out = append(out, wireContent{Type: "text", Text: b.Text, Citations: raw.Citations[strconv.Itoa(i)]})
			}
		case canonical.ImageBlock:
			if role != "user" {
				p.drop(m, b.Type(), "images are accepted only in user content")
				continue
			}
			if c, ok := p.image(m, b); ok {
				out = append(out, c)
			}
		case canonical.ToolUseBlock:
			if role != "assistant" {
				p.drop(m, b.Type(), "tool_use is accepted only in assistant content")
				continue
			}
			if !p.answered[b.ID] {
				// A cancelled or failed turn's call: the API rejects a
				// tool_use that no tool_result follows.
				p.drop(m, b.Type(), "tool_use has no tool_result")
				continue
			}
			in := b.Input
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			out = append(out, wireContent{Type: "tool_use", ID: p.wireID(b.ID), Name: b.Name, Input: in})
		case canonical.ToolResultBlock:
			if role != "user" {
				p.drop(m, b.Type(), "tool_result is accepted only in user content")
				continue
			}
			isError := b.IsError
			c := wireContent{Type: "tool_result", ToolUseID: p.wireID(b.ToolUseID), IsError: &isError}
			if rc := p.resultContent(m, b.Content); len(rc) > 0 {
				c.Content = &resultContent{Blocks: rc}
			}
			out = append(out, c)
		case canonical.ThinkingBlock:
			switch {
			case role != "assistant":
				p.drop(m, b.Type(), "thinking is accepted only in assistant content")
			case !own:
				p.drop(m, b.Type(), "thinking from provider "+quoteOr(m.Metadata.Provider, "unknown")+" has no Anthropic signature")
			case b.Signature == "":
				p.drop(m, b.Type(), "thinking without a signature is rejected by the API")
			default:
				text := b.Text
				out = append(out, wireContent{Type: "thinking", Thinking: &text, Signature: b.Signature})
			}
		case canonical.RedactedThinkingBlock:
			switch {
			case role != "assistant":
				p.drop(m, b.Type(), "redacted_thinking is accepted only in assistant content")
			case !own:
				p.drop(m, b.Type(), "redacted_thinking from provider "+quoteOr(m.Metadata.Provider, "unknown")+" is opaque to Anthropic")
			default:
				out = append(out, wireContent{Type: "redacted_thinking", Data: b.Data})
			}
		default:
			p.drop(m, b.Type(), "block type has no Anthropic representation")
		}
	}
	for _, sb := range server {
		out = append(out, wireContent{raw: sb.Block})
	}
	return out
}

// resultContent translates a tool result's content (text and images).
func (p *projector) resultContent(m *canonical.Message, bs canonical.Blocks) []wireContent {
	var out []wireContent
	for _, b := range bs {
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" {
				out = append(out, wireContent{Type: "text", Text: b.Text})
			}
		case canonical.ImageBlock:
			if c, ok := p.image(m, b); ok {
				out = append(out, c)
			}
		default:
			p.drop(m, b.Type(), "tool_result content may hold only text and images")
		}
	}
	return out
}

// image translates an image block, or drops it when the model or the
// wire cannot take it.
func (p *projector) image(m *canonical.Message, b canonical.ImageBlock) (wireContent, bool) {
	if !p.caps.SupportsImages {
		p.drop(m, b.Type(), "model does not accept images")
		return wireContent{}, false
	}
	switch b.Source.Kind {
	case canonical.ImageBase64:
		if !p.caps.AcceptsImageType(b.MediaType) {
			p.drop(m, b.Type(), "model does not accept media type "+quoteOr(b.MediaType, "(none)"))
			return wireContent{}, false
		}
		return wireContent{Type: "image", Source: &wireImageSource{Type: "base64", MediaType: b.MediaType, Data: b.Source.Data}}, true
	case canonical.ImageURL:
		return wireContent{Type: "image", Source: &wireImageSource{Type: "url", URL: b.Source.Data}}, true
	case canonical.ImageFileRef:
		p.drop(m, b.Type(), "file_ref images cannot be sent to Anthropic")
	default:
		p.drop(m, b.Type(), "unknown image source kind "+quoteOr(b.Source.Kind, "(none)"))
	}
	return wireContent{}, false
}

func (p *projector) wireID(canonicalID string) string {
	return p.req.ToolIDs.Wire(p.c.Adapter, canonicalID)
}

func (p *projector) drop(m *canonical.Message, bt canonical.BlockType, reason string) {
	p.c.Drop(m, bt, reason)
}

func quoteOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return `"` + s + `"`
}
