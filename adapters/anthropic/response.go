package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// wireResponse is a non-streamed Messages API answer (and the message
// object of message_start).
type wireResponse struct {
	Type         wireName    `json:"type"`
	ID           string      `json:"id"`
	Model        string      `json:"model"`
	Content      []wireBlock `json:"content"`
	StopReason   wireName    `json:"stop_reason"`
	StopSequence string      `json:"stop_sequence"`
	Usage        wireUsage   `json:"usage"`
	Role         string      `json:"role"`
}

// describeType quotes a body's type for an error, or says it has none.
func describeType(t wireName) string {
	if t == "" {
		return "none"
	}
	return fmt.Sprintf("%q", string(t))
}

// wireBlock is a response content block (and content_block_start's
// content_block). Only the fields canonical content needs are decoded.
type wireBlock struct {
	Type      wireName        `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	Citations json.RawMessage `json:"citations"`
	// raw is the whole block, verbatim, for block types with no
	// canonical form (server_tool_use, web_search_tool_result, ...).
	raw json.RawMessage
}

type wireBlockFields wireBlock

// UnmarshalJSON decodes a block, keeping a copy of the whole block when
// its type has no canonical form.
func (b *wireBlock) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*wireBlockFields)(b)); err != nil {
		return err
	}
	switch b.Type {
	case "text", "thinking", "redacted_thinking", "tool_use":
	default:
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			return err
		}
		b.raw = c.Bytes()
	}
	return nil
}

// wireUsage holds token counts; nil means absent, which matters when
// message_delta's counts supersede message_start's.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

// merge overwrites u with the counts present in w.
func (w *wireUsage) merge(u *canonical.TokenUsage) {
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&u.InputTokens, w.InputTokens)
	set(&u.OutputTokens, w.OutputTokens)
	set(&u.CachedInputTokens, w.CacheReadInputTokens)
	set(&u.CacheCreationInputTokens, w.CacheCreationInputTokens)
}

// wireName is a JSON string naming a type or a reason. The names the
// adapter knows decode without allocating, which matters when every event
// of a stream carries two of them.
type wireName string

// UnmarshalJSON decodes a JSON string (or null, leaving n unchanged).
func (n *wireName) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		if k, ok := knownName(b[1 : len(b)-1]); ok {
			*n = k
			return nil
		}
	}
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s != nil {
		*n = wireName(*s)
	}
	return nil
}

// knownName returns the constant for a name the decoder knows.
func knownName(b []byte) (wireName, bool) {
	switch string(b) {
	case "message_start":
		return "message_start", true
	case "content_block_start":
		return "content_block_start", true
	case "content_block_delta":
		return "content_block_delta", true
	case "content_block_stop":
		return "content_block_stop", true
	case "message_delta":
		return "message_delta", true
	case "message_stop":
		return "message_stop", true
	case "ping":
		return "ping", true
	case "error":
		return "error", true
	case "message":
		return "message", true
	case "text":
		return "text", true
	case "thinking":
		return "thinking", true
	case "redacted_thinking":
		return "redacted_thinking", true
	case "tool_use":
		return "tool_use", true
	case "text_delta":
		return "text_delta", true
	case "input_json_delta":
		return "input_json_delta", true
	case "thinking_delta":
		return "thinking_delta", true
	case "signature_delta":
		return "signature_delta", true
	case "end_turn":
		return "end_turn", true
	case "max_tokens":
		return "max_tokens", true
	case "stop_sequence":
		return "stop_sequence", true
	case "pause_turn":
		return "pause_turn", true
	case "refusal":
		return "refusal", true
	case "citations_delta":
		return "citations_delta", true
	}
	return "", false
}

// blockKind is how the decoder treats a provider content block.
type blockKind uint8

const (
	kindSkip            blockKind = iota // redacted thinking, complete at once
	kindText                             // text
	kindThinking                         // thinking
	kindTool                             // client tool_use
	kindStructured                       // the output_schema tool, still without input
	kindStructuredInput                  // the output_schema tool, with input seen
	kindServer                           // a server-side tool block, kept verbatim
)

// decoder turns one call's Messages API answer into Assembler calls. The
// stream and body paths share it so both give the same response. A
// decoder serves one call.
type decoder struct {
	provider   string
	structured bool // the synthetic output_schema tool is in use

	kinds   map[int]blockKind // stream: kind of each open provider block
	sawTool bool              // a client tool_use was decoded

	opened    int                       // canonical blocks opened so far
	citations map[int][]json.RawMessage // text blocks' citations, by canonical index
	textIndex map[int]int               // provider key of an open text block → canonical index
	server    []serverBlock             // server-side tool blocks, in order
	serverKey map[int]int               // provider key of an open server block → index in server
	serverArg map[int][]byte            // streamed input of an open server_tool_use

	id, model, stopSequence string
	usage                   canonical.TokenUsage
}

func newDecoder(provider string, structured bool) *decoder {
	return &decoder{provider: provider, structured: structured, kinds: map[int]blockKind{}}
}

// decodeBody decodes a non-streamed answer (an driver.BodyDecoder).
func (d *decoder) decodeBody(body []byte, a *driver.Assembler) error {
	var r wireResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return driver.InvalidResponse(d.provider, err, "decoding response body: %v", err)
	}
	if r.Type == "error" {
		return classifyEvent(d.provider, body)
	}
	if r.Type != "message" && (r.Type != "" || r.Role != "assistant") {
		// null, {}, or an object of another type: not a Messages API
		// answer, whatever it decodes to.
		return driver.InvalidResponse(d.provider, nil, "response body is not a message: want \"type\": \"message\", got %s", describeType(r.Type))
	}
	d.id, d.model, d.stopSequence = r.ID, r.Model, r.StopSequence
	for i, b := range r.Content {
		if err := d.block(a, i, &b); err != nil {
			return err
		}
		switch d.kinds[i] {
		case kindTool:
			if in := compactObject(b.Input); in != nil {
				a.ToolInputFinal(i, in)
			}
		case kindStructured:
			in := compactObject(b.Input)
			if in == nil {
				in = json.RawMessage("{}")
			}
			a.TextDelta(i, string(in))
			d.kinds[i] = kindStructuredInput
		}
		if err := d.endBlock(a, i); err != nil {
			return err
		}
	}
	r.Usage.merge(&d.usage)
	a.SetUsage(d.usage)
	d.finish(a, string(r.StopReason))
	return nil
}

// block opens provider block key of b's type on a, remembering its kind.
// Block types that are not canonical are skipped.
func (d *decoder) block(a *driver.Assembler, key int, b *wireBlock) error {
	switch b.Type {
	case "text":
		d.kinds[key] = kindText
		a.TextDelta(key, b.Text)
		if i, ok := a.BlockIndex(key); ok {
			if d.textIndex == nil {
				d.textIndex = map[int]int{}
			}
			d.textIndex[key] = i
		}
		d.opened++
		if err := d.addCitations(key, b.Citations); err != nil {
			return err
		}
	case "thinking":
		d.kinds[key] = kindThinking
		d.opened++
		a.ThinkingDelta(key, b.Thinking)
		if b.Signature != "" {
			a.ThinkingSignature(key, b.Signature)
		}
	case "redacted_thinking":
		d.kinds[key] = kindSkip // complete at once; nothing follows
		d.opened++
		a.RedactedThinking(key, b.Data)
	case "tool_use":
		if d.structured && b.Name == structuredToolName {
			d.kinds[key] = kindStructured
			d.opened++
			a.TextDelta(key, "")
			return nil
		}
		if b.ID == "" || b.Name == "" {
			return driver.InvalidResponse(d.provider, nil, "content block %d: tool_use without id or name", key)
		}
		d.kinds[key] = kindTool
		d.sawTool = true
		d.opened++
		a.ToolStart(key, b.ID, b.Name)
	default:
		// A server-side tool block (server_tool_use,
		// web_search_tool_result, ...): no canonical form; kept verbatim
		// in ProviderRaw, placed before the canonical block that follows.
		if b.Type == "" {
			return driver.InvalidResponse(d.provider, nil, "content block %d has no type", key)
		}
		d.kinds[key] = kindServer
		if d.serverKey == nil {
			d.serverKey = map[int]int{}
		}
		d.serverKey[key] = len(d.server)
		d.server = append(d.server, serverBlock{Before: d.opened, Block: b.raw})
	}
	return nil
}

// addCitations records the citations of the text block under key: a
// JSON array (text blocks') or one citation (citations_delta's).
func (d *decoder) addCitations(key int, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	i, ok := d.textIndex[key]
	if !ok {
		return driver.InvalidResponse(d.provider, nil, "citations for block %d, which is not a text block", key)
	}
	var list []json.RawMessage
	switch raw[0] {
	case '[':
		if err := json.Unmarshal(raw, &list); err != nil {
			return driver.InvalidResponse(d.provider, err, "content block %d: citations: %v", key, err)
		}
	case '{':
		list = []json.RawMessage{bytes.Clone(raw)}
	default:
		return driver.InvalidResponse(d.provider, nil, "content block %d: citations are neither an array nor a citation", key)
	}
	if len(list) == 0 {
		return nil
	}
	if d.citations == nil {
		d.citations = map[int][]json.RawMessage{}
	}
	d.citations[i] = append(d.citations[i], list...)
	return nil
}

// endBlock closes provider block key. A server block whose streamed
// input is not a JSON object is an error.
func (d *decoder) endBlock(a *driver.Assembler, key int) error {
	kind, ok := d.kinds[key]
	if kind == kindServer {
		delete(d.kinds, key)
		return d.endServer(key)
	}
	if !ok || kind == kindSkip {
		delete(d.kinds, key)
		return nil
	}
	if kind == kindStructured { // no input arrived: the empty object
		a.TextDelta(key, "{}")
	}
	if kind == kindTool {
		a.ToolInputFromArgs(key, compactObject)
	}
	a.EndBlock(key)
	delete(d.kinds, key)
	delete(d.textIndex, key)
	return nil
}

// endServer completes the server block under key: a server_tool_use's
// streamed input replaces the empty one content_block_start carried.
func (d *decoder) endServer(key int) error {
	i := d.serverKey[key]
	delete(d.serverKey, key)
	args, streamed := d.serverArg[key]
	delete(d.serverArg, key)
	if !streamed {
		return nil
	}
	in := compactObject(args)
	if in == nil {
		if len(bytes.TrimSpace(args)) > 0 {
			return driver.InvalidResponse(d.provider, nil, "server tool block %d: streamed input %q is not a JSON object", key, clipBytes(args))
		}
		in = json.RawMessage("{}")
	}
	v, err := driver.DecodeOrderedJSON(d.server[i].Block)
	obj, ok := v.(*driver.JSONObject)
	if err != nil || !ok {
		return driver.InvalidResponse(d.provider, err, "server tool block %d is not a JSON object", key)
	}
	obj.Set("input", in)
	b, err := obj.MarshalJSON()
	if err != nil {
		return driver.InvalidResponse(d.provider, err, "server tool block %d: %v", key, err)
	}
	d.server[i].Block = b
	return nil
}

func clipBytes(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// finish completes the message with the mapped stop reason.
func (d *decoder) finish(a *driver.Assembler, providerStop string) {
	stop := mapStopReason(providerStop)
	if stop == canonical.StopToolUse && d.structured && !d.sawTool {
		stop = canonical.StopEndTurn // the forced output tool is not a tool call
	}
	if raw := d.providerRaw(); raw != nil {
		a.SetProviderRaw(raw)
	}
	a.SetServedModel(d.model)
	a.Finish(stop, providerStop)
}

// providerRaw is this adapter's entry in MessageMetadata.ProviderRaw
// (Response.ProviderRaw): the provider's message id, the stop sequence
// that ended it, the citations of its text blocks by canonical block
// index, and its server-side tool blocks verbatim, each with the
// canonical index of the block it came before (the content's length when
// it came last). The model that served it is Response.ServedModel.
//
//	{"id":"msg_…","stop_sequence":"END",
//	 "citations":{"1":[{"type":"web_search_result_location",…}]},
//	 "server_blocks":[{"before":1,"block":{"type":"server_tool_use",…}},
//	                  {"before":1,"block":{"type":"web_search_tool_result",…}}]}
//
// The citations and server blocks go back, in place, when the message is
// sent to Anthropic again, so that a pause_turn can be resumed.
type providerRaw struct {
	ID           string                     `json:"id,omitempty"`
	StopSequence string                     `json:"stop_sequence,omitempty"`
	Citations    map[string]json.RawMessage `json:"citations,omitempty"`
	ServerBlocks []serverBlock              `json:"server_blocks,omitempty"`
}

// serverBlock is a server-side tool block and where it stood.
type serverBlock struct {
	Before int             `json:"before"`
	Block  json.RawMessage `json:"block"`
}

func (d *decoder) providerRaw() json.RawMessage {
	r := providerRaw{ID: d.id, StopSequence: d.stopSequence, ServerBlocks: d.server}
	for i, list := range d.citations {
		if r.Citations == nil {
			r.Citations = map[string]json.RawMessage{}
		}
		b, err := json.Marshal(list)
		if err != nil {
			continue
		}
		r.Citations[strconv.Itoa(i)] = b
	}
	if r.ID == "" && r.StopSequence == "" && len(r.Citations) == 0 && len(r.ServerBlocks) == 0 {
		return nil
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	return raw
}

// parseRaw decodes this adapter's ProviderRaw entry; a malformed one
// (written by something else) is treated as empty.
func parseRaw(data json.RawMessage) providerRaw { return driver.ParseRaw[providerRaw](data) }

// mapStopReason maps Anthropic's stop_reason to the canonical one.
func mapStopReason(s string) canonical.StopReason {
	switch s {
	case "max_tokens", "model_context_window_exceeded":
		return canonical.StopMaxTokens
	case "stop_sequence":
		return canonical.StopStopSequence
	case "tool_use":
		return canonical.StopToolUse
	case "refusal":
		return canonical.StopContentFilter
	default: // end_turn, pause_turn, null and reasons added later
		return canonical.StopEndTurn
	}
}

// compactObject returns b compacted when it is a JSON object, else nil.
// Tool inputs are stored compact so streamed and non-streamed calls give
// identical content.
func compactObject(b []byte) json.RawMessage {
	return driver.CompactObject(bytes.TrimSpace(b))
}

// classifyEvent classifies an error body received with a 2xx status
// (a stream's error event, or an error object in place of a message).
func classifyEvent(provider string, data []byte) *canonical.AdapterError {
	var we wireError
	if err := json.Unmarshal(data, &we); err != nil {
		return driver.InvalidResponse(provider, err, "decoding error event: %v", err)
	}
	ae := errorFor(0, we.Error.Type, we.Error.Message)
	ae.Provider = provider
	ae.ProviderRequestID = we.RequestID
	return ae
}
