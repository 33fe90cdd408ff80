package vertex

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
)

// jsonMap decodes a JSON object.
func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// staticToken is a token source counting its calls; each token expires
// after ttl (0: never).
type countingSource struct {
	mu  sync.Mutex
	n   int
	ttl time.Duration
}

func (c *countingSource) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	tok := &oauth2.Token{AccessToken: "ya29.test-token-" + string(rune('0'+c.n)), TokenType: "Bearer"}
	if c.ttl != 0 {
		tok.Expiry = time.Now().Add(c.ttl)
	}
	return tok, nil
}

// noEnv is a Getenv with nothing set.
func noEnv(string) string { return "" }

// config is an adapter Config for tests: the named models under the
// options, against base.
func config(base string, opts map[string]any, models map[string]adapters.ModelConfig) adapters.Config {
	return adapters.Config{BaseURL: base, Options: opts, Models: models, Getenv: noEnv, Clock: adaptertest.NewClock(time.Now())}
}
