package gemini

import (
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// imageTypes are the image media types the Gemini API documents for
// image understanding.
var imageTypes = []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}

// thinkingModel is what Gemini 2.5 and 3 models can do through this
// adapter. Notes on the flags that are false:
//
//   - supports_streaming_tool_calls: Gemini streams each functionCall
//     whole; there are no argument deltas, so tool.use_input_delta carries
//     the complete input once.
//   - supports_prompt_caching: Gemini caches prompt prefixes implicitly and
//     reports cachedContentTokenCount (mapped to cached_input_tokens), but
//     the adapter exposes no control over it (explicit CachedContent
//     resources are not used), so callers cannot rely on it.
var thinkingModel = canonical.Capabilities{
	SupportsImages:             true,
	SupportsThinking:           true,
	SupportsTools:              true,
	SupportsSystemPrompt:       true,
	SupportsStructuredOutput:   true,
	SupportsStreaming:          true,
	SupportsStreamingToolCalls: false,
	SupportsParallelToolCalls:  true,
	SupportsPromptCaching:      false,
	MaxContextTokens:           1048576,
	MaxOutputTokens:            65536,
	AcceptedImageMediaTypes:    imageTypes,
}

// flashModel is Gemini 2.0 Flash (and Flash-Lite): no thinking, 8192
// output tokens.
var flashModel = func() canonical.Capabilities {
	c := thinkingModel
	c.SupportsThinking = false
	c.MaxOutputTokens = 8192
	return c
}()

// gemmaModel is a Gemma model served by the Gemini API: no function
// calling, no system instruction, no JSON mode, 128K context.
var gemmaModel = canonical.Capabilities{
	SupportsImages:          true,
	SupportsStreaming:       true,
	MaxContextTokens:        131072,
	MaxOutputTokens:         8192,
	AcceptedImageMediaTypes: imageTypes,
}

// modelTable declares capabilities by wire-name prefix; the first match
// wins.
var modelTable = []struct {
	prefix string
	caps   canonical.Capabilities
}{
	{"gemini-3", thinkingModel},
	{"gemini-2.5", thinkingModel},
	{"gemini-2.0", flashModel},
	{"gemma-", gemmaModel},
}

// capabilitiesFor returns the declaration for a wire model name. Unknown
// Gemini models get the conservative Gemini 2.0 declaration.
func capabilitiesFor(wire string) canonical.Capabilities {
	wire = wireModel(wire)
	for _, m := range modelTable {
		if strings.HasPrefix(wire, m.prefix) {
			return clone(m.caps)
		}
	}
	return clone(flashModel)
}

// clone copies c so callers cannot alias the table's media type slice.
func clone(c canonical.Capabilities) canonical.Capabilities {
	c.AcceptedImageMediaTypes = append([]string(nil), c.AcceptedImageMediaTypes...)
	return c
}

// isGemini3 reports whether the wire model validates thought signatures
// strictly.
func isGemini3(wire string) bool { return strings.HasPrefix(wire, "gemini-3") }
