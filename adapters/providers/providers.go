// Package providers lists every adapter metis ships, so that a registry
// loaded from models.yaml can build any of them by type. A program starts
// with NewRuntime, whose Adapter method serves any "provider:model" id
// with keys from the environment (a session.Resolver):
//
//	rt, err := providers.NewRuntime(adapters.RuntimeOptions{})
//	defer rt.Close()
//	s := session.New(session.Options{Model: "anthropic:claude-sonnet-4-6", Adapters: rt.Adapter})
//
// or opens one adapter of a registry itself:
//
//	reg, _ := adapters.DefaultRegistry()
//	a, err := reg.Open("anthropic", providers.Factories(), os.Getenv, nil)
//
// It exists apart from package adapters because the provider packages
// import adapters; importing them back from there would be a cycle.
package providers

import (
	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/azure"
	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/adapters/bedrockconverse"
	"github.com/metis-llm/metis/adapters/gemini"
	"github.com/metis-llm/metis/adapters/ollama"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/adapters/openaicompat"
	"github.com/metis-llm/metis/adapters/vertex"
)

// Factories returns a fresh map from adapter type (the "type" field of a
// models.yaml adapter entry) to its constructor.
func Factories() map[string]adapters.Factory {
	return map[string]adapters.Factory{
		"anthropic":    factory(anthropic.New),
		"openai":       factory(openai.New),
		"gemini":       factory(gemini.New),
		"openaicompat": factory(openaicompat.New),
		// Ollama's native /api/chat (its /v1 is openaicompat kind ollama).
		"ollama-native": factory(ollama.New),
		// Cloud platforms serving the same models (issue #20).
		"vertex":           factory(vertex.New),
		"vertex-anthropic": factory(vertex.NewAnthropic),
		"azure":            factory(azure.New),
		"bedrock":          factory(bedrock.New),
		"bedrock-converse": factory(bedrockconverse.New),
	}
}

// NewRuntime returns an adapters.Runtime that builds every built-in
// adapter: adapters.NewRuntime(Factories(), opts). The zero opts use the
// embedded models.yaml and read keys from the environment.
func NewRuntime(opts adapters.RuntimeOptions) (*adapters.Runtime, error) {
	return adapters.NewRuntime(Factories(), opts)
}

// factory adapts a provider constructor to adapters.Factory, returning a
// nil interface (not a typed nil) on error.
func factory[A adapters.Adapter](newAdapter func(adapters.Config) (A, error)) adapters.Factory {
	return func(c adapters.Config) (adapters.Adapter, error) {
		a, err := newAdapter(c)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
}
