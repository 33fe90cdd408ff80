package canonical

import (
	"encoding/json"
	"strings"
)

// Request is what the core hands an adapter for one model call (000 §3.3).
type Request struct {
	// RequestID identifies the call; Cancel takes it.
	RequestID string `json:"request_id"`
	SessionID string `json:"session_id,omitempty"`
	// Messages is the history in order. SYSTEM messages are hoisted or
	// injected by the adapter as its provider needs.
	Messages   []Message        `json:"messages"`
	Tools      []ToolDefinition `json:"tools,omitempty"`
	ToolChoice *ToolChoice      `json:"tool_choice,omitempty"`
	// SystemPrompt is composed by the caller and goes before any SYSTEM
	// messages' text.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// Model is the canonical "provider:name" id.
	Model           string   `json:"model"`
	MaxOutputTokens int      `json:"max_output_tokens,omitempty"`
	StopSequences   []string `json:"stop_sequences,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"top_p,omitempty"`
	Seed            *int64   `json:"seed,omitempty"`
	// OutputSchema asks for structured output matching this JSON Schema.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Thinking asks for model reasoning where the provider supports it.
	Thinking *ThinkingConfig `json:"thinking,omitempty"`
	Stream   bool            `json:"stream,omitempty"`

	// ToolIDs maps canonical tool ids to provider ids for this session. A
	// nil map makes the adapter use a fresh one for this call only.
	ToolIDs ToolIDMap `json:"-"`
}

// ThinkingConfig requests reasoning. Adapters map it to their provider's
// knob (Anthropic budget_tokens, OpenAI reasoning.effort, Gemini
// thinkingConfig) and ignore it for models that cannot reason.
type ThinkingConfig struct {
	// BudgetTokens caps reasoning tokens where the provider takes a budget.
	BudgetTokens int `json:"budget_tokens,omitempty"`
	// Effort is "low", "medium" or "high" where the provider takes one.
	Effort string `json:"effort,omitempty"`
}

// ProviderOf returns the provider part of a canonical model id
// ("anthropic" for "anthropic:claude-sonnet-4-6").
func ProviderOf(model string) string {
	p, _, _ := strings.Cut(model, ":")
	return p
}

// StopReason says why generation stopped (000 §3.3, plus content_filter).
type StopReason string

// Stop reasons. The provider's own reason is kept in Response.ProviderStopReason.
const (
	StopEndTurn       StopReason = "end_turn"
	StopMaxTokens     StopReason = "max_tokens"
	StopStopSequence  StopReason = "stop_sequence"
	StopToolUse       StopReason = "tool_use"
	StopCancelled     StopReason = "cancelled"
	StopError         StopReason = "error"
	StopContentFilter StopReason = "content_filter"
)

// TokenUsage is the raw token accounting of one call; cost is computed by
// the core, never by adapters (000 §7.1).
//
// InputTokens counts only input billed at the full input rate: it excludes
// CachedInputTokens and CacheCreationInputTokens, as Anthropic reports them.
// Adapters for providers whose prompt counts include cached tokens
// (OpenAI, Gemini) subtract them, so that cost is a plain sum of products.
// OutputTokens includes ReasoningTokens.
type TokenUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CachedInputTokens        int `json:"cached_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	ReasoningTokens          int `json:"reasoning_tokens,omitempty"`
	// Estimated marks counts the adapter estimated because the provider
	// sent none (000 §7.2).
	Estimated bool `json:"estimated,omitempty"`
}

// Response is an adapter's answer to one call (000 §3.3). The core turns it
// into an ASSISTANT Message.
type Response struct {
	RequestID string `json:"request_id"`
	// Model is the requested canonical "provider:name" id.
	Model string `json:"model"`
	// ServedModel is the model that served the call as the provider's
	// response names it (OpenAI's and Anthropic's model, Gemini's
	// modelVersion): a dated snapshot, an alias resolved server-side or
	// the model a router picked. Empty when the response did not say.
	ServedModel string     `json:"served_model,omitempty"`
	Provider    string     `json:"provider"`
	Content     Blocks     `json:"content"`
	StopReason  StopReason `json:"stop_reason"`
	// ProviderStopReason is the provider's own finish reason, verbatim.
	ProviderStopReason string     `json:"provider_stop_reason,omitempty"`
	Usage              TokenUsage `json:"usage"`
	LatencyMS          int64      `json:"latency_ms"`
	// ProviderRaw is this provider's opaque round-trip data for the message
	// (signatures on individual parts, encrypted reasoning items, ids). The
	// core stores it as MessageMetadata.ProviderRaw[Provider].
	ProviderRaw json.RawMessage `json:"provider_raw,omitempty"`
	// RawBody is the provider's response body, verbatim, for non-streamed
	// calls (004 §6). Streamed calls leave it empty.
	RawBody json.RawMessage `json:"-"`
}
