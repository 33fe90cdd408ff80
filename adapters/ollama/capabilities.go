package ollama

import (
	"slices"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Default limits when neither the registry nor the server says more:
// Ollama loads models with a 4096-token context unless num_ctx or the
// server's OLLAMA_CONTEXT_LENGTH says otherwise.
const (
	defaultContext = 4096
	defaultOutput  = 2048
)

// Capabilities declares what model can do through this adapter (000
// §3.4). For every model: text, system prompts (in the message list),
// streaming and structured output (format takes a JSON schema and
// constrains any model's output to it). Tools, images and thinking
// depend on the model and on its template, which no request can tell, so
// they are false until the server has been asked (Learn, Ready: the
// capabilities list of POST /api/show) or the registry declares them for
// the model; the registry's values win either way (the driver applies
// them on top). Tool calls arrive whole (no argument deltas), so
// supports_streaming_tool_calls is false; a model with tools may call
// several at once. Prompt caching is false: Ollama reuses its KV cache
// but reports nothing a router could rely on.
func (p *provider) Capabilities(m driver.Model) canonical.Capabilities {
	c := canonical.Capabilities{
		SupportsSystemPrompt:         true,
		SupportsStructuredOutput:     true,
		SupportsStreaming:            true,
		SupportsSystemMessagesInList: true,
		MaxContextTokens:             defaultContext,
		MaxOutputTokens:              defaultOutput,
	}
	p.mu.RLock()
	s, ok := p.learned[m.WireName]
	p.mu.RUnlock()
	if ok {
		c.SupportsTools = s.has("tools")
		c.SupportsParallelToolCalls = c.SupportsTools
		c.SupportsThinking = s.has("thinking")
		c.SupportsImages = s.has("vision")
		if s.context > 0 {
			c.MaxContextTokens = s.context
			c.MaxOutputTokens = s.context
		}
	}
	if opts := p.opts.For(m.ID); opts.NumCtx > 0 {
		c.MaxContextTokens = opts.NumCtx
		c.MaxOutputTokens = min(c.MaxOutputTokens, opts.NumCtx)
	}
	return c
}

// shown is what POST /api/show told about a model.
type shown struct {
	capabilities []string
	context      int // the model's trained context length, 0 if unknown
}

func (s shown) has(capability string) bool { return slices.Contains(s.capabilities, capability) }
