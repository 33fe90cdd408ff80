package canonical

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"
)

// SchemaVersion is the version of the canonical format this package writes
// (001 §10.1). Older rows are brought up to it by the migration registry.
const SchemaVersion = 1

// Role says who a message is from (001 §4.1).
type Role string

// The four roles. Tool results and system prompts are messages of their own.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation in the canonical format.
type Message struct {
	ID            string          `json:"id"`
	SessionID     string          `json:"session_id"`
	Role          Role            `json:"role"`
	Content       Blocks          `json:"content"`
	Metadata      MessageMetadata `json:"metadata"`
	CreatedAt     time.Time       `json:"created_at"`
	SchemaVersion int             `json:"schema_version"`
}

// MessageStatus is the lifecycle state of a message (001 §4.3).
type MessageStatus string

// Message states. Validation of the §5 invariants applies only to complete
// messages; partial ones are streaming and may be malformed.
const (
	StatusComplete  MessageStatus = "complete"
	StatusPartial   MessageStatus = "partial"
	StatusCancelled MessageStatus = "cancelled"
	StatusError     MessageStatus = "error"
)

// MessageMetadata is the provenance, accounting and round-trip data of a
// message. Unknown JSON fields are tolerated and kept in Extra.
type MessageMetadata struct {
	Model string `json:"model,omitempty"`
	// ServedModel is Response.ServedModel: the model that served the
	// call as the provider named it, when it said.
	ServedModel     string                 `json:"served_model,omitempty"`
	Provider        string                 `json:"provider,omitempty"`
	Routing         *RoutingDecisionRecord `json:"routing,omitempty"`
	Usage           *Usage                 `json:"usage,omitempty"`
	ParentToolUseID string                 `json:"parent_tool_use_id,omitempty"`
	Status          MessageStatus          `json:"status,omitempty"`
	// ProviderRaw holds opaque round-trip data keyed by provider name
	// ("anthropic", "openai", "gemini", ...). Only the adapter of that
	// provider reads its entry (001 §6.5); everything else copies it.
	// See the package doc for where each provider's tokens live.
	ProviderRaw map[string]json.RawMessage `json:"provider_raw,omitempty"`
	UserID      string                     `json:"user_id,omitempty"`
	TeamID      string                     `json:"team_id,omitempty"`
	// CriticalBlocks lists the indexes of content blocks that must not be
	// dropped (001 §4.2.2, 000 §4.4): an adapter that cannot carry one of
	// them, or a block of an unknown type, fails the request with
	// invalid_request instead of dropping it with a WARN.
	CriticalBlocks []int `json:"critical_blocks,omitempty"`
	// Extra keeps metadata fields this version does not know (001 §10.3).
	Extra map[string]json.RawMessage `json:"-"`
}

type metadataAlias MessageMetadata

// metadataKnown lists the JSON names MessageMetadata decodes itself.
var metadataKnown = map[string]bool{
	"model": true, "served_model": true, "provider": true, "routing": true, "usage": true,
	"parent_tool_use_id": true, "status": true, "provider_raw": true,
	"user_id": true, "team_id": true, "critical_blocks": true,
}

// Critical reports whether content block i is marked critical.
func (m MessageMetadata) Critical(i int) bool {
	for _, c := range m.CriticalBlocks {
		if c == i {
			return true
		}
	}
	return false
}

// EffectiveStatus is Status, or complete when unset (its declared default).
func (m MessageMetadata) EffectiveStatus() MessageStatus {
	if m.Status == "" {
		return StatusComplete
	}
	return m.Status
}

// UnmarshalJSON decodes metadata, keeping unknown fields in Extra.
func (m *MessageMetadata) UnmarshalJSON(data []byte) error {
	var a metadataAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for k, v := range all {
		if metadataKnown[k] {
			continue
		}
		if a.Extra == nil {
			a.Extra = map[string]json.RawMessage{}
		}
		a.Extra[k] = v
	}
	*m = MessageMetadata(a)
	return nil
}

// MarshalJSON encodes metadata, writing Extra fields back out.
func (m MessageMetadata) MarshalJSON() ([]byte, error) {
	known, err := json.Marshal(metadataAlias(m))
	if err != nil || len(m.Extra) == 0 {
		return known, err
	}
	all := map[string]json.RawMessage{}
	if err := json.Unmarshal(known, &all); err != nil {
		return nil, err
	}
	for k, v := range m.Extra {
		if _, dup := all[k]; !dup {
			all[k] = v
		}
	}
	return json.Marshal(all)
}

// RoutingMode is the coarse reason a model was chosen for a turn (001 §4.3).
type RoutingMode string

// Routing modes.
const (
	RoutingOverride RoutingMode = "override"
	RoutingManual   RoutingMode = "manual"
	RoutingRule     RoutingMode = "rule"
	RoutingPattern  RoutingMode = "pattern"
	RoutingDelegate RoutingMode = "delegate"
	RoutingDefault  RoutingMode = "default"
)

// ChainPolicy is the routing engine's finer-grained reason, which persists
// only as its RoutingMode projection.
type ChainPolicy string

// Chain policies of the routing engine.
const (
	PolicyPerMessageOverride ChainPolicy = "PER_MESSAGE_OVERRIDE"
	PolicyManualSticky       ChainPolicy = "MANUAL_STICKY"
	PolicyRule               ChainPolicy = "RULE"
	PolicyPattern            ChainPolicy = "PATTERN"
	PolicyDelegateRequest    ChainPolicy = "DELEGATE_REQUEST"
	PolicyWorkspaceDefault   ChainPolicy = "WORKSPACE_DEFAULT"
	PolicyGlobalDefault      ChainPolicy = "GLOBAL_DEFAULT"
)

// ModeForPolicy projects a chain policy onto its RoutingMode (001 §4.3).
// Both default levels collapse to RoutingDefault; ok is false for a policy
// this version does not know.
func ModeForPolicy(p ChainPolicy) (mode RoutingMode, ok bool) {
	switch p {
	case PolicyPerMessageOverride:
		return RoutingOverride, true
	case PolicyManualSticky:
		return RoutingManual, true
	case PolicyRule:
		return RoutingRule, true
	case PolicyPattern:
		return RoutingPattern, true
	case PolicyDelegateRequest:
		return RoutingDelegate, true
	case PolicyWorkspaceDefault, PolicyGlobalDefault:
		return RoutingDefault, true
	}
	return "", false
}

// RoutingDecisionRecord summarises why an assistant message's model was
// chosen (001 §4.3).
type RoutingDecisionRecord struct {
	Mode                   RoutingMode `json:"mode"`
	ChosenModel            string      `json:"chosen_model"`
	Reason                 string      `json:"reason"`
	RuleName               string      `json:"rule_name,omitempty"`
	Confidence             *float64    `json:"confidence,omitempty"`
	AlternativesConsidered []string    `json:"alternatives_considered,omitempty"`
}

// Usage is the accounting of one assistant message: tokens, exact cost from
// the local price table, and latency (001 §4.3).
type Usage struct {
	InputTokens              int             `json:"input_tokens"`
	OutputTokens             int             `json:"output_tokens"`
	CachedInputTokens        int             `json:"cached_input_tokens"`
	CacheCreationInputTokens int             `json:"cache_creation_input_tokens"`
	ReasoningTokens          int             `json:"reasoning_tokens,omitempty"`
	CostUSD                  decimal.Decimal `json:"cost_usd"`
	PricingVersion           string          `json:"pricing_version"`
	LatencyMS                int64           `json:"latency_ms"`
	// Estimated is set when the provider reported no usage and the counts
	// are the adapter's estimate (000 §7.2).
	Estimated bool `json:"estimated,omitempty"`
}

// Tokens is the token counts of u, as an adapter reports them.
func (u Usage) Tokens() TokenUsage {
	return TokenUsage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.CachedInputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens, ReasoningTokens: u.ReasoningTokens, Estimated: u.Estimated,
	}
}
