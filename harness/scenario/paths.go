package scenario

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// CassettePath returns the cassette file holding provider's traffic for
// the run of sc on matrix model: dir/<provider>/<scenario-id>.yaml, the
// id's slashes becoming directories. When another model of sc's matrix
// also talks to provider during its run (two models of one provider, or a
// swap to a provider that is also in the matrix), each run gets its own
// file, suffixed "@<model-name>": dir/openai/swap/x@gpt-5.yaml.
// Providers are model id prefixes, which the default registry makes equal
// to adapter names.
func CassettePath(dir string, sc *Scenario, model, provider string) string {
	name := sc.ID
	for _, other := range sc.Models {
		if other != model && slices.Contains(sc.Providers(other), provider) {
			name += "@" + modelName(model)
			break
		}
	}
	return filepath.Join(dir, provider, filepath.FromSlash(name)+".yaml")
}

// Providers returns, in order of first use, the providers the run of sc on
// matrix model talks to: the model's own and those of every swap and
// per-call model.
func (sc *Scenario) Providers(model string) []string {
	out := []string{canonical.ProviderOf(model)}
	add := func(m string) {
		if p := canonical.ProviderOf(m); m != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, st := range sc.Steps {
		switch st.Kind {
		case StepSwap:
			add(st.Swap.Model)
		case StepCall:
			add(st.Call.Model)
		}
	}
	return out
}

// GoldenDir returns the directory of the run's golden files:
// dir/<scenario-id>/<provider>/<model-name>.
func GoldenDir(dir string, sc *Scenario, model string) string {
	provider, name, _ := strings.Cut(model, ":")
	return filepath.Join(dir, filepath.FromSlash(sc.ID), provider, filepath.FromSlash(name))
}

func modelName(model string) string {
	_, name, ok := strings.Cut(model, ":")
	if !ok {
		return model
	}
	return strings.ReplaceAll(name, "/", "_")
}
