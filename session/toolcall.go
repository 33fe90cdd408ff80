package session

import "time"

// ToolCallStatus is the lifecycle state of a tool call in the store.
type ToolCallStatus string

// Tool call states (001 §9.1). A call is pending until its result arrives:
// succeeded or failed by the result's is_error. A call made in a
// cancelled or failed assistant message is cancelled: it is never run.
const (
	ToolCallPending   ToolCallStatus = "pending"
	ToolCallSucceeded ToolCallStatus = "succeeded"
	ToolCallFailed    ToolCallStatus = "failed"
	ToolCallCancelled ToolCallStatus = "cancelled"
)

// ToolCall is one row of the tool_calls table: a tool use, the provider
// id it was generated under, and its outcome.
type ToolCall struct {
	// ID is the canonical tu_ id.
	ID        string
	SessionID string
	// MessageID is the ASSISTANT message containing the tool use;
	// ResultMessageID the TOOL message answering it, empty until then.
	MessageID       string
	ResultMessageID string
	Name            string
	Status          ToolCallStatus
	// Provider and ProviderID are the provider that generated the call
	// and its own id for it, from the session's ToolIDMap. Reloading
	// binds them back into the map.
	Provider   string
	ProviderID string
	CreatedAt  time.Time
	// CompletedAt is zero until the result arrives.
	CompletedAt time.Time
}
