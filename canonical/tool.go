package canonical

import "encoding/json"

// SideEffects declares what running a tool can change (001 §4.4).
type SideEffects string

// Side-effect classes, from none to outbound network mutation.
const (
	SideEffectsNone    SideEffects = "none"
	SideEffectsRead    SideEffects = "read"
	SideEffectsWrite   SideEffects = "write"
	SideEffectsExecute SideEffects = "execute"
	SideEffectsNetwork SideEffects = "network"
)

// ToolDefinition describes a tool the model may call.
type ToolDefinition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema in the subset of 001 §5.4 (see
	// CheckToolSchema), kept verbatim.
	InputSchema json.RawMessage `json:"input_schema"`
	SideEffects SideEffects     `json:"side_effects"`
	// RequiresWorkspace defaults to true when absent from JSON.
	RequiresWorkspace bool `json:"requires_workspace"`
	// Strict asks providers that support it (OpenAI) to constrain
	// generation to the schema exactly.
	Strict bool `json:"strict,omitempty"`
}

// UnmarshalJSON decodes a tool definition, defaulting requires_workspace
// to true as 001 §4.4 declares.
func (t *ToolDefinition) UnmarshalJSON(data []byte) error {
	type alias ToolDefinition
	a := alias{RequiresWorkspace: true}
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	*t = ToolDefinition(a)
	return nil
}

// ToolChoiceMode says how the model may use the request's tools.
type ToolChoiceMode string

// Tool choice modes (seeds 002/003): the model decides, must call some
// tool, must call the named tool, or must not call tools.
const (
	ToolChoiceAuto ToolChoiceMode = "auto"
	ToolChoiceAny  ToolChoiceMode = "any"
	ToolChoiceTool ToolChoiceMode = "tool"
	ToolChoiceNone ToolChoiceMode = "none"
)

// ToolChoice constrains tool use for one request. Name is set only with
// ToolChoiceTool.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode"`
	Name string         `json:"name,omitempty"`
}

// ToolIDMap is a session's bidirectional map between canonical tool ids
// (tu_<ulid>) and the ids providers issue (001 §6.2). Adapters consult it
// on both directions of the wire; the session persists it.
type ToolIDMap interface {
	// Canonical returns the canonical id for an id that provider issued,
	// allocating and recording a new tu_ id the first time it is seen.
	Canonical(provider, providerID string) string
	// Wire returns the id to send to provider for a canonical id: the id
	// that provider issued if it issued one, otherwise an id in a form the
	// provider accepts, recorded so that the provider's echo maps back.
	Wire(provider, canonicalID string) string
}
