// Package myadapter stands for a third party's adapter in the docs'
// certification example (docs/certify.md): an adapters.Adapter and the
// constructor conformtest.Run takes.
package myadapter

import "github.com/metis-llm/metis/adapters"

// Adapter is the third party's adapter.
type Adapter struct{ adapters.Adapter }

// New builds it from the registry's configuration.
func New(cfg adapters.Config) (*Adapter, error) { return &Adapter{}, nil }
