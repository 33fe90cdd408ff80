package openaicompat

import (
	"fmt"
	"slices"
	"strings"
)

// Kind names the kind of server an Adapter talks to. It selects the
// dialect defaults (which reasoning field the server uses), the base
// capability declaration and the readiness probe.
type Kind string

// The server kinds, the values of the "kind" option.
const (
	KindVLLM       Kind = "vllm"
	KindOllama     Kind = "ollama"
	KindLMStudio   Kind = "lmstudio"
	KindLlamaCpp   Kind = "llamacpp"
	KindOpenRouter Kind = "openrouter"
	KindDeepSeek   Kind = "deepseek"
	KindGeneric    Kind = "generic"
)

// kinds lists every kind, in the order the documentation gives them.
var kinds = []Kind{KindVLLM, KindOllama, KindLMStudio, KindLlamaCpp, KindOpenRouter, KindDeepSeek, KindGeneric}

// profile is what the adapter assumes of a kind until the registry says
// more about a model.
type profile struct {
	// reasoningField is the delta and message field that carries
	// reasoning text on this kind of server, read before the other.
	reasoningField string
	// hosted servers route tool requests only to models that take tools
	// (OpenRouter); local and generic ones are trusted with nothing the
	// registry does not declare.
	hosted bool
	// context and output are the conservative default limits.
	context, output int
	// reasoningDetails reads and sends back OpenRouter's
	// reasoning_details; replayReasoning sends thinking back as
	// reasoning_content in tool-call turns (DeepSeek's thinking mode).
	reasoningDetails, replayReasoning bool
}

// profiles holds each kind's defaults. The limits of local servers are
// their usual default context size (Ollama, llama.cpp and LM Studio load
// models with 4096 tokens unless told otherwise); models.yaml declares the
// real ones.
var profiles = map[Kind]profile{
	KindVLLM:       {reasoningField: "reasoning_content", context: 4096, output: 2048},
	KindOllama:     {reasoningField: "reasoning", context: 4096, output: 2048},
	KindLMStudio:   {reasoningField: "reasoning_content", context: 4096, output: 2048},
	KindLlamaCpp:   {reasoningField: "reasoning_content", context: 4096, output: 2048},
	KindOpenRouter: {reasoningField: "reasoning", hosted: true, context: 32768, output: 4096, reasoningDetails: true},
	KindDeepSeek:   {reasoningField: "reasoning_content", hosted: true, context: 131072, output: 8192, replayReasoning: true},
	KindGeneric:    {reasoningField: "reasoning_content", context: 8192, output: 4096},
}

// parseKind reads the "kind" option. When it is absent the adapter's name
// is used if it names a kind ("ollama"), else generic.
func parseKind(name string, opt any) (Kind, error) {
	if opt == nil {
		if k := Kind(name); slices.Contains(kinds, k) {
			return k, nil
		}
		return KindGeneric, nil
	}
	s, ok := opt.(string)
	if !ok {
		return "", fmt.Errorf("options.kind: want a string, got %T", opt)
	}
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(kinds, k) {
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = string(k)
		}
		return "", fmt.Errorf("options.kind: unknown kind %q (want %s)", s, strings.Join(names, ", "))
	}
	return k, nil
}
