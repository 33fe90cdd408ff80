package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// builder carries the state of one request's message translation.
type builder struct {
	c         *driver.Call
	adapter   string
	ids       canonical.ToolIDMap
	gemini3   bool
	calls     map[string]callInfo       // canonical tool_use id → the call
	order     int                       // calls seen so far
	responses map[*functionResponse]int // functionResponse → its call's order
}

// callInfo is what a functionResponse needs from the call it answers.
type callInfo struct {
	name  string
	order int // position among all calls of the history
}

// system returns the systemInstruction: the system prompt and every
// SYSTEM message's text, joined with "\n\n".
func (b *builder) system(req *canonical.Request) *content {
	s := b.c.SystemText("a system instruction carries text only")
	if s == "" {
		return nil
	}
	return &content{Parts: []part{{Text: &s}}}
}

// contents translates msgs (SYSTEM messages excluded) into contents,
// merging consecutive contents of the same role.
func (b *builder) contents(msgs []canonical.Message) ([]content, error) {
	out := []content{}
	for i := range msgs {
		m := &msgs[i]
		var (
			role  string
			parts []part
			err   error
		)
		switch m.Role {
		case canonical.RoleSystem:
			continue
		case canonical.RoleAssistant:
			role, parts = roleModel, b.assistant(m)
		case canonical.RoleUser, canonical.RoleTool:
			role = roleUser
			parts, err = b.user(m)
		default:
			err = driver.InvalidRequest(canonical.CodeInvalidHistory, "unknown role %q", m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			continue
		}
		out = append(out, content{Role: role, Parts: parts})
	}
	for i := range out {
		b.orderResponses(out[i].Parts)
	}
	return out, nil
}

// assistant translates an ASSISTANT message into model parts, restoring
// the thought signatures of messages this adapter produced.
func (b *builder) assistant(m *canonical.Message) []part {
	own := m.Metadata.Provider == b.adapter
	var raw providerRaw
	if own {
		raw = parseRaw(m.Metadata.ProviderRaw[b.adapter])
	}
	parts := make([]part, 0, len(m.Content))
	firstCall := -1
	for i, blk := range m.Content {
		switch blk := blk.(type) {
		case canonical.TextBlock:
			if blk.Text == "" {
				continue
			}
			t := blk.Text
			parts = append(parts, part{Text: &t, ThoughtSignature: raw.signature(i)})
		case canonical.ThinkingBlock:
			if !own {
				b.drop(*m, blk, "thinking from another provider cannot be verified by Gemini")
				continue
			}
			if blk.Text == "" && blk.Signature == "" {
				continue
			}
			t := blk.Text
			parts = append(parts, part{Text: &t, Thought: true, ThoughtSignature: blk.Signature})
		case canonical.ToolUseBlock:
			b.calls[blk.ID] = callInfo{name: blk.Name, order: b.order}
			b.order++
			args := blk.Input
			if len(bytes.TrimSpace(args)) == 0 {
				args = json.RawMessage("{}")
			}
			if firstCall < 0 {
				firstCall = len(parts)
			}
			parts = append(parts, part{
				FunctionCall:     &functionCall{ID: b.wireID(blk.ID), Name: blk.Name, Args: args},
				ThoughtSignature: raw.signature(i),
			})
		case canonical.ImageBlock:
			if p, reason := imagePart(blk); reason != "" {
				b.drop(*m, blk, reason)
			} else {
				parts = append(parts, p)
			}
		case canonical.RedactedThinkingBlock:
			b.drop(*m, blk, "Gemini has no redacted thinking")
		default:
			b.drop(*m, blk, "an assistant turn cannot carry this block on Gemini")
		}
	}
	if raw.Trailing != "" {
		empty := ""
		parts = append(parts, part{Text: &empty, ThoughtSignature: raw.Trailing})
	}
	if b.gemini3 && firstCall >= 0 && parts[firstCall].ThoughtSignature == "" {
		parts[firstCall].ThoughtSignature = foreignSignature
	}
	return parts
}

// user translates a USER or TOOL message into user parts.
func (b *builder) user(m *canonical.Message) ([]part, error) {
	parts := make([]part, 0, len(m.Content))
	for _, blk := range m.Content {
		switch blk := blk.(type) {
		case canonical.TextBlock:
			if blk.Text == "" {
				continue
			}
			t := blk.Text
			parts = append(parts, part{Text: &t})
		case canonical.ImageBlock:
			if p, reason := imagePart(blk); reason != "" {
				b.drop(*m, blk, reason)
			} else {
				parts = append(parts, p)
			}
		case canonical.ToolResultBlock:
			p, err := b.toolResult(m, blk)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		default:
			b.drop(*m, blk, "a user turn cannot carry this block on Gemini")
		}
	}
	return parts, nil
}

// toolResult builds the functionResponse answering a tool_use.
func (b *builder) toolResult(m *canonical.Message, r canonical.ToolResultBlock) (part, error) {
	call, ok := b.calls[r.ToolUseID]
	if !ok {
		return part{}, driver.InvalidRequest(canonical.CodeInvalidHistory,
			"tool_result references unknown tool_use id %s", r.ToolUseID)
	}
	var texts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case canonical.TextBlock:
			texts = append(texts, c.Text)
		default:
			b.drop(*m, c, "a Gemini functionResponse carries text only")
		}
	}
	text := strings.Join(texts, "\n")
	res := responseResult{Output: &text}
	if r.IsError {
		res = responseResult{Error: &text}
	}
	fr := &functionResponse{ID: b.wireID(r.ToolUseID), Name: call.name, Response: res}
	b.responses[fr] = call.order
	return part{FunctionResponse: fr}, nil
}

// wireID returns the id to send for a canonical tool id: the id Gemini
// issued for the call, or "" when Gemini issued none (a call Gemini made
// without an id, or one made by another provider), in which case Gemini
// matches the response to its call by name and position.
func (b *builder) wireID(canonicalID string) string {
	id := b.ids.Wire(b.adapter, canonicalID)
	if canonical.IsToolUseID(id) {
		return ""
	}
	return id
}

// orderResponses puts the functionResponse parts of a content in the
// order of the calls they answer, leaving other parts where they are.
func (b *builder) orderResponses(parts []part) {
	var slots []int
	for i, p := range parts {
		if p.FunctionResponse != nil {
			slots = append(slots, i)
		}
	}
	if len(slots) < 2 {
		return
	}
	rs := make([]part, len(slots))
	for i, s := range slots {
		rs[i] = parts[s]
	}
	slices.SortStableFunc(rs, func(x, y part) int {
		return b.responses[x.FunctionResponse] - b.responses[y.FunctionResponse]
	})
	for i, s := range slots {
		parts[s] = rs[i]
	}
}

// drop logs the lossy-projection WARN for a block left out of the wire.
func (b *builder) drop(m canonical.Message, blk canonical.Block, reason string) {
	b.c.Drop(&m, blk.Type(), reason)
}

// imagePart returns the part for an image, or the reason it cannot be
// sent.
func imagePart(img canonical.ImageBlock) (part, string) {
	switch img.Source.Kind {
	case canonical.ImageBase64:
		return part{InlineData: &blob{MimeType: img.MediaType, Data: img.Source.Data}}, ""
	case canonical.ImageURL:
		if mime, data, ok := parseDataURL(img.Source.Data); ok {
			if img.MediaType != "" {
				mime = img.MediaType
			}
			return part{InlineData: &blob{MimeType: mime, Data: data}}, ""
		}
		return part{FileData: &fileData{MimeType: img.MediaType, FileURI: img.Source.Data}}, ""
	case canonical.ImageFileRef:
		return part{}, "workspace file references must be resolved to data before reaching the adapter"
	}
	return part{}, fmt.Sprintf("unknown image source kind %q", img.Source.Kind)
}

// parseDataURL splits "data:<mime>;base64,<data>".
func parseDataURL(u string) (mime, data string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", "", false
	}
	mime, ok = strings.CutSuffix(meta, ";base64")
	return mime, data, ok
}
