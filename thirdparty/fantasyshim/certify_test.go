package fantasyshim_test

import (
	"testing"

	"github.com/metis-llm/metis/thirdparty/fantasyshim"
	"github.com/metis-llm/metis/thirdparty/internal/shim"
)

// TestCertify certifies fantasy on each provider metis has a column for.
// A failure listed in testdata/known/<provider>.txt is expected; any other
// failure, or a listed run that passes, fails the test.
func TestCertify(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai", "gemini"} {
		t.Run(provider, func(t *testing.T) {
			shim.Certify(t, provider, fantasyshim.New, shim.Library{Name: "fantasy", Version: fantasyshim.Version})
		})
	}
}
