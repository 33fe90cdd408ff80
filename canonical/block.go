package canonical

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// BlockType is the discriminator of a content block's JSON object ("type").
type BlockType string

// The closed set of content block types (001 §4.2). New types are additive
// only; a type this version does not know decodes into an UnknownBlock.
const (
	BlockText             BlockType = "text"
	BlockToolUse          BlockType = "tool_use"
	BlockToolResult       BlockType = "tool_result"
	BlockImage            BlockType = "image"
	BlockThinking         BlockType = "thinking"
	BlockRedactedThinking BlockType = "redacted_thinking"
)

// Block is one content block of a Message: a closed tagged union over the
// concrete types in this file. Only this package's types implement it.
type Block interface {
	// Type reports the block's discriminator.
	Type() BlockType
	isBlock()
}

// TextBlock is plain text.
type TextBlock struct {
	Text string `json:"text"`
}

// ToolUseBlock is a tool call made by the assistant. ID is the canonical
// tu_<ulid> id; the provider's own id lives in the session's ToolIDMap.
type ToolUseBlock struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the tool input, a JSON object kept verbatim so that number
	// precision and key order survive round trips.
	Input json.RawMessage `json:"input"`
	// InputError is set by the adapter that received the call when Input
	// did not match the tool's input_schema, or named no tool of the
	// request (001 §5.2.4): it says what failed. Such a call must not be
	// run; answer it with an is_error tool_result (a session does so for
	// you) so that the model can correct it. History validation does not
	// check a marked input against the schema again.
	InputError string `json:"input_error,omitempty"`
}

// ToolResultBlock answers a ToolUseBlock. It appears only in TOOL messages.
type ToolResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	Content   Blocks `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// Image source kinds (001 §4.2).
const (
	ImageBase64  = "base64"
	ImageURL     = "url"
	ImageFileRef = "file_ref"
)

// ImageSource says where an image's bytes are: inline base64 data, a URL,
// or a workspace-relative file reference.
type ImageSource struct {
	Kind string `json:"kind"`
	Data string `json:"data"`
}

// ImageBlock is an image input.
type ImageBlock struct {
	Source    ImageSource `json:"source"`
	MediaType string      `json:"media_type"`
}

// ThinkingBlock is model reasoning text. Signature is the opaque token the
// provider that produced the message (MessageMetadata.Provider) needs back
// to verify the block; it is meaningless to any other provider and is
// stripped before the block is sent elsewhere.
type ThinkingBlock struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

// RedactedThinkingBlock is reasoning the provider returned encrypted.
type RedactedThinkingBlock struct {
	Data string `json:"data"`
}

// UnknownBlock preserves a block whose type this version does not know
// (001 §10.3). It round-trips its JSON verbatim; validation reports it.
type UnknownBlock struct {
	BlockType BlockType
	Raw       json.RawMessage
}

func (TextBlock) Type() BlockType             { return BlockText }
func (ToolUseBlock) Type() BlockType          { return BlockToolUse }
func (ToolResultBlock) Type() BlockType       { return BlockToolResult }
func (ImageBlock) Type() BlockType            { return BlockImage }
func (ThinkingBlock) Type() BlockType         { return BlockThinking }
func (RedactedThinkingBlock) Type() BlockType { return BlockRedactedThinking }
func (b UnknownBlock) Type() BlockType        { return b.BlockType }

func (TextBlock) isBlock()             {}
func (ToolUseBlock) isBlock()          {}
func (ToolResultBlock) isBlock()       {}
func (ImageBlock) isBlock()            {}
func (ThinkingBlock) isBlock()         {}
func (RedactedThinkingBlock) isBlock() {}
func (UnknownBlock) isBlock()          {}

// Blocks is an ordered list of content blocks with the tagged-union JSON form.
type Blocks []Block

// MarshalJSON writes each block as an object with its "type" first.
func (bs Blocks) MarshalJSON() ([]byte, error) {
	if bs == nil {
		return []byte("[]"), nil
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, b := range bs {
		if i > 0 {
			buf.WriteByte(',')
		}
		data, err := MarshalBlock(b)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		buf.Write(data)
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// UnmarshalJSON decodes a JSON array of tagged blocks. Unknown types become
// UnknownBlock values; a block without a type is an error naming its index.
func (bs *Blocks) UnmarshalJSON(data []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return err
	}
	out := make(Blocks, 0, len(raws))
	for i, raw := range raws {
		b, err := UnmarshalBlock(raw)
		if err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		out = append(out, b)
	}
	*bs = out
	return nil
}

// MarshalBlock encodes one block in its tagged JSON form.
func MarshalBlock(b Block) ([]byte, error) {
	if b == nil {
		return nil, fmt.Errorf("nil content block")
	}
	if u, ok := b.(UnknownBlock); ok {
		return u.Raw, nil
	}
	body, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	// body is a JSON object; splice the discriminator in front.
	var buf bytes.Buffer
	buf.Grow(len(body) + 24)
	buf.WriteString(`{"type":`)
	t, _ := json.Marshal(string(b.Type()))
	buf.Write(t)
	if len(body) > 2 {
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// UnmarshalBlock decodes one tagged block.
func UnmarshalBlock(raw json.RawMessage) (Block, error) {
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	if head.Type == nil {
		return nil, fmt.Errorf("block has no \"type\"")
	}
	var (
		b   Block
		err error
	)
	switch BlockType(*head.Type) {
	case BlockText:
		var v TextBlock
		err = json.Unmarshal(raw, &v)
		b = v
	case BlockToolUse:
		var v ToolUseBlock
		err = json.Unmarshal(raw, &v)
		if err == nil && len(v.Input) == 0 {
			v.Input = json.RawMessage("{}")
		}
		b = v
	case BlockToolResult:
		var v ToolResultBlock
		err = json.Unmarshal(raw, &v)
		b = v
	case BlockImage:
		var v ImageBlock
		err = json.Unmarshal(raw, &v)
		b = v
	case BlockThinking:
		var v ThinkingBlock
		err = json.Unmarshal(raw, &v)
		b = v
	case BlockRedactedThinking:
		var v RedactedThinkingBlock
		err = json.Unmarshal(raw, &v)
		b = v
	default:
		cp := make(json.RawMessage, len(raw))
		copy(cp, raw)
		b = UnknownBlock{BlockType: BlockType(*head.Type), Raw: cp}
	}
	if err != nil {
		return nil, fmt.Errorf("%s block: %w", *head.Type, err)
	}
	return b, nil
}

// Text concatenates the text of every TextBlock in bs.
func (bs Blocks) Text() string {
	var n int
	for _, b := range bs {
		if t, ok := b.(TextBlock); ok {
			n += len(t.Text)
		}
	}
	buf := make([]byte, 0, n)
	for _, b := range bs {
		if t, ok := b.(TextBlock); ok {
			buf = append(buf, t.Text...)
		}
	}
	return string(buf)
}

// ToolUses returns the ToolUseBlocks in bs, in order.
func (bs Blocks) ToolUses() []ToolUseBlock {
	var out []ToolUseBlock
	for _, b := range bs {
		if t, ok := b.(ToolUseBlock); ok {
			out = append(out, t)
		}
	}
	return out
}
