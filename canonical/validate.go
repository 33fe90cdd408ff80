package canonical

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ValidateMessage checks the invariants of 001 §5 that one message must
// satisfy on its own. It returns nil or an *AdapterError of class
// invalid_request whose Err is the Violations found; every violation is
// reported, not only the first.
//
// A message whose status is not complete (partial, cancelled, error) is
// exempt (001 §5.1.5): only its status value is checked. A complete
// message must have
//
//   - a known role, and at least one content block unless it is SYSTEM;
//   - only the block types its role allows (001 §5.1.3): USER text and
//     image; ASSISTANT text, tool_use, thinking and redacted_thinking;
//     TOOL exactly one tool_result; SYSTEM text only;
//   - well-formed blocks: tool_use with a canonical tu_ id, a name and a
//     JSON object input; tool_result with a tu_ id and only text and image
//     content; images with a known source kind, data and a media type;
//     redacted_thinking with data;
//   - no UnknownBlock (code unsupported_content): a block type this
//     version does not know decodes and round-trips, but is not valid;
//   - on ASSISTANT, metadata model, provider, routing and usage (001 §5.3);
//   - on TOOL, metadata parent_tool_use_id equal to its tool_result's
//     tool_use_id (001 §5.3.4, §8.2).
//
// Violation codes are CodeInvalidHistory, or CodeUnsupportedContent for an
// UnknownBlock.
func ValidateMessage(m Message) error {
	var vs Violations
	checkMessage(&vs, m, "", true)
	return vs.err()
}

// ValidateHistory checks that msgs and tools make a well-formed request
// (004 §3, §5): what an adapter verifies before anything goes on the wire.
// It returns nil or an *AdapterError of class invalid_request whose Err
// holds every Violation found, with paths naming the message and block
// ("messages[3].content[1]: tool_result references unknown tool_use id
// tu_…"). The rules:
//
//   - msgs is not empty. Any number of SYSTEM messages may open the list
//     (001 composes system prompts from several messages; 004 allows the
//     first to be system); a SYSTEM message after the first non-system one
//     is a violation, since providers hoist system prompts to the top.
//
//   - The first non-system message is USER, and the last message is USER
//     or TOOL (the request to the model).
//
//   - Every complete message passes the content checks of ValidateMessage.
//     The provenance checks (canonical tu_ ids, assistant model, provider,
//     routing and usage, parent_tool_use_id) are not repeated here: the
//     wire needs none of them, and ValidateMessage is where they belong.
//
//   - Every tool_result answers a tool_use in an earlier message; no
//     tool_use is answered twice; no two tool_use blocks share an id.
//
//   - Tool names are unique; each tool has a valid name and an input
//     schema in the subset of CheckToolSchema (side_effects is not needed
//     on the wire and is checked by ValidateToolDefinition only).
//
//   - The input of every tool_use in a complete message validates against
//     its tool's schema when that tool is among tools (code
//     tool_input_invalid), unless the block is marked with InputError: its
//     input was found invalid on arrival and is kept as the model sent it,
//     for the model to see its mistake. A tool_use of a tool not offered in
//     this request is allowed: tools may change between turns.
//
//   - Every tool_use of a complete ASSISTANT message is answered by the
//     TOOL messages that directly follow it (code tool_call_state): every
//     provider refuses a tool call left without its result (003 §7.5).
//     A session never sends one: its policy answers a call it never ran
//     with an is_error result.
func ValidateHistory(msgs []Message, tools []ToolDefinition) error {
	var vs Violations

	byName := make(map[string]int, len(tools))
	usable := make(map[string]ToolDefinition, len(tools))
	for i, t := range tools {
		p := fmt.Sprintf("tools[%d]", i)
		var tv Violations
		checkToolName(&tv, t.Name, field(p, "name"))
		checkToolSchemaField(&tv, t.InputSchema, field(p, "input_schema"))
		vs = append(vs, tv...)
		if first, dup := byName[t.Name]; dup {
			vs.add(field(p, "name"), CodeInvalidToolDefinition, "duplicate tool name %q (first at tools[%d])", t.Name, first)
			continue
		}
		byName[t.Name] = i
		if len(tv) == 0 {
			usable[t.Name] = t
		}
	}

	if len(msgs) == 0 {
		vs.add("messages", CodeInvalidHistory, "history is empty; a call needs at least one user message")
		return vs.err()
	}

	type use struct {
		at       string // path of the tool_use block
		answered string // path of the tool_result answering it, "" if none
	}
	uses := make(map[string]*use)
	// waiting holds the ids of the tool calls of the last assistant
	// message, which the tool messages right after it must answer.
	var waiting []string
	checkAnswered := func() {
		for _, id := range waiting {
			if u := uses[id]; u != nil && u.answered == "" {
				vs.add(u.at, CodeToolCallState, "tool_use %s has no tool_result in the tool messages that directly follow it; every tool call must be answered before the conversation goes on (answer it with is_error, as a session does for a call it never ran)", id)
			}
		}
		waiting = waiting[:0]
	}
	started := false // a non-system message has been seen
	for i, m := range msgs {
		p := fmt.Sprintf("messages[%d]", i)
		complete := checkMessage(&vs, m, p, false)
		if m.Role != RoleTool {
			checkAnswered()
		}

		if m.Role == RoleSystem {
			if started {
				vs.add(field(p, "role"), CodeInvalidHistory, "system message after the conversation started; system messages must all come first")
			}
		} else {
			if !started && m.Role != RoleUser {
				vs.add(field(p, "role"), CodeInvalidHistory, "conversation starts with a %q message; the first non-system message must be user", m.Role)
			}
			started = true
		}

		for j, b := range m.Content {
			bp := fmt.Sprintf("%s.content[%d]", p, j)
			switch b := b.(type) {
			case ToolUseBlock:
				if b.ID == "" {
					continue // reported by checkMessage
				}
				if u, dup := uses[b.ID]; dup {
					vs.add(bp, CodeInvalidHistory, "duplicate tool_use id %s (first at %s)", b.ID, u.at)
				} else {
					uses[b.ID] = &use{at: bp}
					if m.Role == RoleAssistant && complete {
						waiting = append(waiting, b.ID)
					}
				}
				if t, ok := usable[b.Name]; ok && complete && b.InputError == "" && isJSONObject(b.Input) {
					if iv := toolInputViolations(t, b.Input); len(iv) > 0 {
						vs.addPrefixed(bp+".", iv)
					}
				}
			case ToolResultBlock:
				if b.ToolUseID == "" {
					continue // reported by checkMessage
				}
				u, ok := uses[b.ToolUseID]
				switch {
				case !ok:
					vs.add(bp, CodeInvalidHistory, "tool_result references unknown tool_use id %s; it must answer a tool_use in an earlier message", b.ToolUseID)
				case u.answered != "":
					vs.add(bp, CodeInvalidHistory, "tool_use %s is already answered at %s", b.ToolUseID, u.answered)
				default:
					u.answered = bp
				}
			}
		}
	}

	last := msgs[len(msgs)-1]
	if last.Role == RoleTool {
		checkAnswered()
	}
	if last.Role != RoleUser && last.Role != RoleTool {
		vs.add(fmt.Sprintf("messages[%d].role", len(msgs)-1), CodeInvalidHistory, "the last message is %q; a call needs a user or tool message last", last.Role)
	}
	return vs.err()
}

// checkMessage adds m's violations with paths under prefix and reports
// whether m is complete (and so was checked). provenance selects the
// checks that concern persisted messages rather than the wire.
func checkMessage(vs *Violations, m Message, prefix string, provenance bool) bool {
	status := m.Metadata.EffectiveStatus()
	switch status {
	case StatusComplete:
	case StatusPartial, StatusCancelled, StatusError:
		return false
	default:
		vs.add(field(prefix, "metadata.status"), CodeInvalidHistory, "unknown status %q", status)
		return false
	}
	switch m.Role {
	case RoleUser, RoleAssistant, RoleSystem, RoleTool:
	default:
		vs.add(field(prefix, "role"), CodeInvalidHistory, "unknown role %q", m.Role)
		return true
	}

	if m.Role != RoleSystem && len(m.Content) == 0 {
		vs.add(field(prefix, "content"), CodeInvalidHistory, "%s message has no content blocks", m.Role)
	}
	if m.Role == RoleTool && len(m.Content) > 1 {
		vs.add(field(prefix, "content"), CodeInvalidHistory, "tool message has %d blocks; it must have exactly one tool_result", len(m.Content))
	}
	for i, b := range m.Content {
		checkBlock(vs, m.Role, b, fmt.Sprintf("%s[%d]", field(prefix, "content"), i), provenance)
	}

	if !provenance {
		return true
	}
	md := field(prefix, "metadata")
	switch m.Role {
	case RoleAssistant:
		if m.Metadata.Model == "" {
			vs.add(md+".model", CodeInvalidHistory, "complete assistant message has no model")
		}
		if m.Metadata.Provider == "" {
			vs.add(md+".provider", CodeInvalidHistory, "complete assistant message has no provider")
		}
		if m.Metadata.Routing == nil {
			vs.add(md+".routing", CodeInvalidHistory, "complete assistant message has no routing record")
		}
		if m.Metadata.Usage == nil {
			vs.add(md+".usage", CodeInvalidHistory, "complete assistant message has no usage")
		}
	case RoleTool:
		parent := m.Metadata.ParentToolUseID
		if parent == "" {
			vs.add(md+".parent_tool_use_id", CodeInvalidHistory, "tool message has no parent_tool_use_id")
		} else if len(m.Content) == 1 {
			if r, ok := m.Content[0].(ToolResultBlock); ok && r.ToolUseID != parent {
				vs.add(md+".parent_tool_use_id", CodeInvalidHistory, "parent_tool_use_id %s differs from the tool_result's tool_use_id %s", parent, r.ToolUseID)
			}
		}
	}
	return true
}

// allowedIn reports whether role may carry blocks of type t (001 §5.1.3).
func allowedIn(role Role, t BlockType) bool {
	switch role {
	case RoleUser:
		return t == BlockText || t == BlockImage
	case RoleAssistant:
		return t == BlockText || t == BlockToolUse || t == BlockThinking || t == BlockRedactedThinking
	case RoleTool:
		return t == BlockToolResult
	case RoleSystem:
		return t == BlockText
	}
	return false
}

// checkBlock adds the violations of block b of a role message at path.
func checkBlock(vs *Violations, role Role, b Block, path string, provenance bool) {
	if u, ok := b.(UnknownBlock); ok {
		vs.add(path, CodeUnsupportedContent, "unknown block type %q", u.BlockType)
		return
	}
	if b == nil {
		vs.add(path, CodeInvalidHistory, "nil content block")
		return
	}
	if !allowedIn(role, b.Type()) {
		vs.add(path, CodeInvalidHistory, "%s block is not allowed in a %s message", b.Type(), role)
		return
	}
	switch b := b.(type) {
	case ToolUseBlock:
		checkToolID(vs, b.ID, path+".id", provenance)
		if b.Name == "" {
			vs.add(path+".name", CodeInvalidHistory, "tool_use has no name")
		}
		if !isJSONObject(b.Input) {
			vs.add(path+".input", CodeToolInputInvalid, "tool_use input is not a JSON object")
		}
	case ToolResultBlock:
		checkToolID(vs, b.ToolUseID, path+".tool_use_id", provenance)
		for i, nb := range b.Content {
			np := fmt.Sprintf("%s.content[%d]", path, i)
			switch nb := nb.(type) {
			case TextBlock:
			case ImageBlock:
				checkImage(vs, nb, np)
			case UnknownBlock:
				vs.add(np, CodeUnsupportedContent, "unknown block type %q", nb.BlockType)
			case nil:
				vs.add(np, CodeInvalidHistory, "nil content block")
			default:
				vs.add(np, CodeInvalidHistory, "%s block is not allowed in a tool_result; only text and image are", nb.Type())
			}
		}
	case ImageBlock:
		checkImage(vs, b, path)
	case RedactedThinkingBlock:
		if b.Data == "" {
			vs.add(path+".data", CodeInvalidHistory, "redacted_thinking has no data")
		}
	}
}

// checkToolID checks a tool_use or tool_result id: present always, and in
// canonical tu_ form when provenance is checked (001 §5.2.1, §6.2).
func checkToolID(vs *Violations, id, path string, provenance bool) {
	switch {
	case id == "":
		vs.add(path, CodeInvalidHistory, "tool id is empty")
	case provenance && (!strings.HasPrefix(id, "tu_") || len(id) == len("tu_")):
		vs.add(path, CodeInvalidHistory, "tool id %q is not a canonical tu_ id", id)
	}
}

// checkImage checks an image's source and media type.
func checkImage(vs *Violations, im ImageBlock, path string) {
	switch im.Source.Kind {
	case ImageBase64, ImageURL, ImageFileRef:
	default:
		vs.add(path+".source.kind", CodeInvalidHistory, "unknown image source kind %q; want base64, url or file_ref", im.Source.Kind)
	}
	if im.Source.Data == "" {
		vs.add(path+".source.data", CodeInvalidHistory, "image source has no data")
	}
	if im.MediaType == "" {
		vs.add(path+".media_type", CodeInvalidHistory, "image has no media_type")
	}
}

// isJSONObject reports whether raw is one valid JSON object.
func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(raw)
}
