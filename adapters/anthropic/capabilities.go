package anthropic

import (
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// imageTypes are the media types the Messages API accepts for images.
var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// modelFamily is one row of the capability table: models whose wire name
// starts with prefix.
type modelFamily struct {
	prefix    string
	maxOutput int
}

// families lists the Claude 4 generation, most specific prefix first.
// Context windows are declared as the standard 200K for all of them (some
// reach 1M, with a beta header on older ones): declaring less than a
// model can do is honest, more is not. Output limits are Anthropic's
// published maximums per model.
var families = []modelFamily{
	{"claude-opus-4-0", 32000},
	{"claude-opus-4-1", 32000},
	{"claude-opus-4-2025", 32000}, // claude-opus-4-20250514
	{"claude-opus-4-6", 128000},
	{"claude-opus-4", 64000}, // 4.5, and later ones until the table learns them
	{"claude-sonnet-4", 64000},
	{"claude-haiku-4-5", 64000},
}

// Capabilities declares what model (a canonical id) can do through this
// adapter: the family table by wire name, then the registry's overrides.
// Models outside the table get a conservative declaration: text, tools
// and streaming only, with a 4096-token output limit.
func (p *provider) Capabilities(m driver.Model) canonical.Capabilities {
	return capabilitiesFor(m.WireName)
}

func capabilitiesFor(wire string) canonical.Capabilities {
	for _, f := range families {
		if strings.HasPrefix(wire, f.prefix) {
			return canonical.Capabilities{
				SupportsImages:             true,
				SupportsThinking:           true,
				SupportsTools:              true,
				SupportsSystemPrompt:       true,
				SupportsStructuredOutput:   true,
				SupportsStreaming:          true,
				SupportsStreamingToolCalls: true,
				SupportsParallelToolCalls:  true,
				SupportsPromptCaching:      true,
				MaxContextTokens:           200000,
				MaxOutputTokens:            f.maxOutput,
				AcceptedImageMediaTypes:    append([]string(nil), imageTypes...),
			}
		}
	}
	return canonical.Capabilities{
		SupportsTools:              true,
		SupportsSystemPrompt:       true,
		SupportsStructuredOutput:   true,
		SupportsStreaming:          true,
		SupportsStreamingToolCalls: true,
		MaxContextTokens:           200000,
		MaxOutputTokens:            4096,
	}
}
