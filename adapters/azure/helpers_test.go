package azure

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
)

// resource is the endpoint of the recordings' Azure resources.
const (
	resourceV1   = "https://fantasy-playground-resource.openai.azure.com"
	resource2024 = "https://traceloop-stg.openai.azure.com"
	testKey      = "azure-test-key-not-secret"
)

// jsonMap decodes a JSON object.
func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// newAdapter returns an adapter on base serving model id as deployment
// wire with the model options opts (and api_version at adapter level).
func newAdapter(t *testing.T, base, id, wire string, adapterOpts, modelOpts map[string]any) *driver.Adapter {
	t.Helper()
	cfg := adapters.Config{
		BaseURL: base, APIKey: testKey, Options: adapterOpts, Clock: adaptertest.NewClock(time.Now()),
		Models: map[string]adapters.ModelConfig{id: {WireName: wire, Options: modelOpts}},
	}
	a, err := New(cfg)
	require.NoError(t, err)
	return a
}

// countingSource is a token source counting its calls; each token
// expires after ttl.
type countingSource struct {
	mu  sync.Mutex
	n   int
	ttl time.Duration
}

func (c *countingSource) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return &oauth2.Token{AccessToken: fmt.Sprintf("entra-token-%d", c.n), TokenType: "Bearer", Expiry: time.Now().Add(c.ttl)}, nil
}
