package langchaingoshim_test

import (
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/thirdparty/internal/shim"
	"github.com/metis-llm/metis/thirdparty/langchaingoshim"
)

// TestCertify certifies langchaingo on each provider metis has a column
// for: Anthropic, and OpenAI's Chat Completions (langchaingo has no
// Responses API, so the Responses columns are left out). A failure listed
// in testdata/known/<provider>.txt is expected; any other failure, or a listed run
// that passes, fails the test.
func TestCertify(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			shim.Certify(t, provider, langchaingoshim.New, shim.Library{Name: "langchaingo", Version: langchaingoshim.Version, Decline: responses})
		})
	}
}

// responses reports whether the matrix model speaks OpenAI's Responses
// API (models.yaml: dialect responses), which langchaingo does not.
func responses(model string) bool {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		return false
	}
	m, err := reg.Resolve(model)
	return err == nil && m.Adapter == "openai" && m.Options["dialect"] == "responses"
}
