package openaicompat

import (
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Capabilities declares what model can do through this adapter (000
// §3.4): the kind's conservative base, then the registry's capabilities
// for the model field by field (models.yaml).
//
// The base is honest about what a compatible server cannot be trusted to
// say. Whether a local model calls tools reliably, takes images or
// reasons depends on the model and on server flags (vLLM's
// --enable-auto-tool-choice and tool parser, llama.cpp's --jinja), which no
// endpoint reports; so for vllm, ollama, lmstudio, llamacpp and generic
// servers tools, images, thinking and structured output are false until
// models.yaml declares them for the model (000 §11.7). OpenRouter routes a
// request with tools only to providers that take them, so its base
// declares tools (streamed and parallel). Streaming and system prompts
// are always available. Prompt caching is false: no compatible server
// reports cache use in a form routing could rely on. The limits are the
// kind's usual defaults (profiles).
//
// What the server said of the model, once Discover asked it (Ollama's
// capabilities, LM Studio's and llama.cpp's), replaces the base field by
// field; models.yaml still has the last word.
func (pr *provider) Capabilities(m driver.Model) canonical.Capabilities {
	p := profiles[pr.kind]
	c := canonical.Capabilities{
		SupportsTools:                p.hosted,
		SupportsSystemPrompt:         true,
		SupportsStreaming:            true,
		SupportsStreamingToolCalls:   p.hosted,
		SupportsParallelToolCalls:    p.hosted,
		SupportsSystemMessagesInList: true,
		MaxContextTokens:             p.context,
		MaxOutputTokens:              p.output,
	}
	if l, ok := pr.learned.get(m.WireName); ok {
		l.apply(&c)
	}
	return c
}
