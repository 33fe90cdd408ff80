package canonical

import "encoding/json"

// EventType is the discriminator of a StreamEvent.
type EventType string

// Canonical stream events (000 §5.1, 001 §7.4).
const (
	EventMessageStart    EventType = "message.start"
	EventTextDelta       EventType = "text.delta"
	EventThinkingDelta   EventType = "thinking.delta"
	EventToolUseStart    EventType = "tool.use_start"
	EventToolUseInput    EventType = "tool.use_input_delta"
	EventToolUseEnd      EventType = "tool.use_end"
	EventUsageUpdate     EventType = "usage.update"
	EventMessageComplete EventType = "message.complete"
	EventError           EventType = "error"
)

// StreamEvent is one canonical streaming event. It is a flat struct rather
// than an interface so that decoders allocate little per event; which
// fields are set depends on Type:
//
//	message.start         MessageID, Model
//	text.delta            Index, Text
//	thinking.delta        Index, Text; the block's last one carries Signature
//	tool.use_start        Index, ToolUseID (canonical), ToolName
//	tool.use_input_delta  Index, ToolUseID, PartialJSON (the raw fragment)
//	tool.use_end          Index, ToolUseID, FinalInput (a JSON object),
//	                      InputError when the input failed its schema
//	usage.update          Usage (cumulative so far)
//	message.complete      Response (final content, stop reason, usage)
//	error                 Error (only in recorded traces: adapters return
//	                      errors through the iterator's error value)
//
// Every event carries MessageID, which identifies the message being
// streamed: adapters set it to the call's Request.RequestID, since the
// final message id is allocated by the core (001 §6.1) only once the
// message is complete.
type StreamEvent struct {
	Type        EventType       `json:"type"`
	MessageID   string          `json:"message_id,omitempty"`
	Index       int             `json:"content_block_index"`
	Model       string          `json:"model,omitempty"`
	Text        string          `json:"text,omitempty"`
	Signature   string          `json:"signature,omitempty"`
	ToolUseID   string          `json:"tool_use_id,omitempty"`
	ToolName    string          `json:"tool_name,omitempty"`
	PartialJSON string          `json:"partial_json,omitempty"`
	FinalInput  json.RawMessage `json:"final_input,omitempty"`
	// InputError, on tool.use_end, says why FinalInput does not match the
	// tool's input_schema (see ToolUseBlock.InputError).
	InputError string        `json:"input_error,omitempty"`
	Usage      *TokenUsage   `json:"usage,omitempty"`
	Response   *Response     `json:"response,omitempty"`
	Error      *AdapterError `json:"error,omitempty"`
}
