package canonical

// Capabilities is what an adapter declares a model can do (000 §3.4,
// 001 §7.2). Declarations must be honest: a feature the adapter does not
// expose is false even if the model has it.
type Capabilities struct {
	SupportsImages           bool `json:"supports_images"`
	SupportsThinking         bool `json:"supports_thinking"`
	SupportsTools            bool `json:"supports_tools"`
	SupportsSystemPrompt     bool `json:"supports_system_prompt"`
	SupportsStructuredOutput bool `json:"supports_structured_output"`

	SupportsStreaming          bool `json:"supports_streaming"`
	SupportsStreamingToolCalls bool `json:"supports_streaming_tool_calls"`
	SupportsParallelToolCalls  bool `json:"supports_parallel_tool_calls"`

	SupportsPromptCaching bool `json:"supports_prompt_caching"`
	// SupportsSystemMessagesInList is true where system prompts travel in
	// the message list rather than hoisted into a top-level field.
	SupportsSystemMessagesInList bool `json:"supports_system_messages_in_list"`

	MaxContextTokens int `json:"max_context_tokens"`
	MaxOutputTokens  int `json:"max_output_tokens"`

	AcceptedImageMediaTypes []string `json:"accepted_image_media_types,omitempty"`
}

// AcceptsImageType reports whether mediaType is among the accepted types.
func (c Capabilities) AcceptsImageType(mediaType string) bool {
	if !c.SupportsImages {
		return false
	}
	if len(c.AcceptedImageMediaTypes) == 0 {
		return true
	}
	for _, t := range c.AcceptedImageMediaTypes {
		if t == mediaType {
			return true
		}
	}
	return false
}
