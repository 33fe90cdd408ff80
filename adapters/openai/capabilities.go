package openai

import (
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// profile is what the adapter knows of a model family.
type profile struct {
	prefix     string
	images     bool
	reasoning  bool // a reasoning model (thinking through the Responses API)
	tools      bool
	structured bool
	context    int
	output     int
}

// profiles is matched by wire-name prefix, first match wins, so longer
// prefixes come first. Limits are OpenAI's published ones.
var profiles = []profile{
	{prefix: "gpt-5-chat", images: true, tools: true, structured: true, context: 128000, output: 16384},
	{prefix: "gpt-5", images: true, reasoning: true, tools: true, structured: true, context: 400000, output: 128000},
	{prefix: "gpt-4.1", images: true, tools: true, structured: true, context: 1047576, output: 32768},
	{prefix: "gpt-4o", images: true, tools: true, structured: true, context: 128000, output: 16384},
	{prefix: "o4-mini", images: true, reasoning: true, tools: true, structured: true, context: 200000, output: 100000},
	{prefix: "o3-mini", reasoning: true, tools: true, structured: true, context: 200000, output: 100000},
	{prefix: "o3", images: true, reasoning: true, tools: true, structured: true, context: 200000, output: 100000},
	{prefix: "o1-mini", reasoning: true, context: 128000, output: 65536},
	{prefix: "o1", images: true, reasoning: true, tools: true, structured: true, context: 200000, output: 100000},
}

// unknownProfile is declared for models the table does not know: text and
// tools only, with conservative limits.
var unknownProfile = profile{tools: true, context: 128000, output: 16384}

func profileFor(wire string) profile {
	for _, p := range profiles {
		if strings.HasPrefix(wire, p.prefix) {
			return p
		}
	}
	return unknownProfile
}

// imageTypes are the image media types OpenAI accepts.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Capabilities declares what model can do through this adapter (000
// §3.4), from a table by wire-name prefix, then overridden field by field
// by the registry's capabilities for the model. Honesty rules: thinking
// is true only for reasoning models on the Responses dialect (Chat
// Completions returns no reasoning and cannot take it back); prompt
// caching is OpenAI's automatic cache; system text is placed by the
// adapter (instructions, or the first message), so
// SupportsSystemMessagesInList is true.
func (pr *provider) Capabilities(m driver.Model) canonical.Capabilities {
	return capabilitiesFor(m.WireName, pr.opts.For(m.ID).Dialect == dialectResponses)
}

// capabilitiesFor is the declaration for a model by wire name on the
// Responses dialect (responses) or Chat Completions.
func capabilitiesFor(wire string, responses bool) canonical.Capabilities {
	p := profileFor(wire)
	c := canonical.Capabilities{
		SupportsImages:               p.images,
		SupportsThinking:             p.reasoning && responses,
		SupportsTools:                p.tools,
		SupportsSystemPrompt:         true,
		SupportsStructuredOutput:     p.structured,
		SupportsStreaming:            true,
		SupportsStreamingToolCalls:   p.tools,
		SupportsParallelToolCalls:    p.tools,
		SupportsPromptCaching:        true,
		SupportsSystemMessagesInList: true,
		MaxContextTokens:             p.context,
		MaxOutputTokens:              p.output,
	}
	if p.images {
		c.AcceptedImageMediaTypes = imageTypes
	}
	return c
}
