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
	"github.com/metis-llm/metis/adapters/gemini"
	"github.com/metis-llm/metis/adapters/openai"
)

// Factories returns a fresh map from adapter type (the "type" field of a
// models.yaml adapter entry) to its constructor.
func Factories() map[string]adapters.Factory {
	return map[string]adapters.Factory{
		"anthropic": func(c adapters.Config) (adapters.Adapter, error) { return anthropic.New(c) },
		"openai":    func(c adapters.Config) (adapters.Adapter, error) { return openai.New(c) },
		"gemini":    func(c adapters.Config) (adapters.Adapter, error) { return gemini.New(c) },
	}
}
