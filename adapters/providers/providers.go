// Package providers lists every adapter metis ships, so that a registry
// loaded from models.yaml can build any of them by type:
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
		// Cloud platforms serving the same models (issue #20).
		"vertex":           factory(vertex.New),
		"vertex-anthropic": factory(vertex.NewAnthropic),
		"azure":            factory(azure.New),
		"bedrock":          factory(bedrock.New),
		"bedrock-converse": factory(bedrockconverse.New),
	}
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
