package providers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
)

// Every adapter type the default registry names must have a factory, and
// each factory must build an adapter that answers to the registry's name.
func TestFactoriesCoverDefaultRegistry(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	env := func(string) string { return "test-key-not-secret" }
	for _, name := range reg.Adapters() {
		a, err := reg.Open(name, Factories(), env, nil)
		require.NoError(t, err, "adapter %s", name)
		assert.Equal(t, name, a.Name(), "adapter %s", name)
		require.NoError(t, a.Close())
	}
}
