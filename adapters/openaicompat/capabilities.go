package openaicompat

import (
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
func (a *Adapter) Capabilities(model string) canonical.Capabilities {
	p := profiles[a.kind]
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
	return a.rt.Config.Model(model).Apply(c)
}

// checkCapabilities refuses, before any HTTP call, a request that needs
// what caps does not declare: tools, images (or an image type not
// accepted), structured output, or streaming. Errors are invalid_request
// with Code unsupported_content. A thinking request for a model that does
// not declare thinking is not refused: canonical.ThinkingConfig is a
// request the adapter ignores where it cannot apply it.
func checkCapabilities(req *canonical.Request, caps canonical.Capabilities, stream bool) error {
	refuse := func(format string, args ...any) error {
		return canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeUnsupportedContent, format, args...)
	}
	if len(req.Tools) > 0 && !caps.SupportsTools {
		return refuse("model %s does not declare tool support (set capabilities.supports_tools in models.yaml if it calls tools reliably)", req.Model)
	}
	if len(req.OutputSchema) > 0 && !caps.SupportsStructuredOutput {
		return refuse("model %s does not declare structured output", req.Model)
	}
	if stream && !caps.SupportsStreaming {
		return refuse("model %s does not support streaming", req.Model)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			img, ok := b.(canonical.ImageBlock)
			if !ok {
				continue
			}
			if !caps.SupportsImages {
				return refuse("model %s does not declare image input (message %s)", req.Model, m.ID)
			}
			if img.MediaType != "" && !caps.AcceptsImageType(img.MediaType) {
				return refuse("model %s does not accept %s images (message %s)", req.Model, img.MediaType, m.ID)
			}
		}
	}
	return nil
}
