package vertex

import (
	"strings"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/gemini"
	"github.com/metis-llm/metis/canonical"
)

// Capabilities declares a Gemini model on Vertex AI as the Gemini adapter
// does: Vertex serves the same models with the same features (the
// registry's overrides apply on top).
func (p *geminiProvider) Capabilities(m driver.Model) canonical.Capabilities {
	return gemini.Capabilities(geminiModel(m.WireName))
}

// Capabilities declares a Claude model on Vertex AI as the Anthropic
// adapter does for its Anthropic name: Vertex AI names versions with an
// "@date" suffix (claude-3-7-sonnet@20250219), which the family table
// does not need. Prompt caching, thinking, images and tools work on
// Vertex AI as on Anthropic's API.
func (p *anthropicProvider) Capabilities(m driver.Model) canonical.Capabilities {
	return anthropic.Capabilities(ClaudeName(m.WireName))
}

// ClaudeName returns the Anthropic name of a Vertex AI Claude model id:
// the id without its "@date" version.
func ClaudeName(wire string) string {
	name, _, _ := strings.Cut(wire, "@")
	return name
}
