package replay_test

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

// queryCassette holds calls that differ only by their query: two Azure
// api-versions, and Gemini's ?alt=sse stream against the same path
// without it.
const queryCassette = `version: 2
interactions:
    - id: 0
      request:
        body: '{"messages":[]}'
        url: https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21
        method: POST
      response:
        body: 'old-version'
        status: 200 OK
        code: 200
    - id: 1
      request:
        body: '{"messages":[]}'
        url: https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2025-04-01-preview
        method: POST
      response:
        body: 'new-version'
        status: 200 OK
        code: 200
    - id: 2
      request:
        body: '{"contents":[]}'
        url: https://g.test/v1beta/models/m:streamGenerateContent?alt=sse
        method: POST
      response:
        body: 'sse'
        status: 200 OK
        code: 200
`

// Exact matching compares the query: a request is served the answer
// recorded for its own api-version, and a query the cassette does not
// hold (none, or another value) is a mismatch, not the nearest
// interaction's answer (the class of php-vcr/php-vcr#42: a matcher that
// drops the query string serves any version the same answer).
func TestExactMatchingComparesTheQuery(t *testing.T) {
	p, err := replay.Load(writeCassette(t, queryCassette))
	require.NoError(t, err)
	for _, tc := range []struct{ url, body, want string }{
		{"https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2025-04-01-preview", `{"messages":[]}`, "new-version"},
		{"https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21", `{"messages":[]}`, "old-version"},
	} {
		resp, err := post(t, p, tc.url, tc.body)
		require.NoError(t, err, tc.url)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.want, string(got), tc.url)
	}
	for _, url := range []string{
		"https://r.openai.azure.com/openai/deployments/d/chat/completions",
		"https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2099-01-01",
		"https://g.test/v1beta/models/m:streamGenerateContent",
	} {
		body := `{"messages":[]}`
		if url == "https://g.test/v1beta/models/m:streamGenerateContent" {
			body = `{"contents":[]}`
		}
		_, err := post(t, p, url, body)
		var me *replay.MismatchError
		assert.ErrorAs(t, err, &me, "%s must not match a recorded call with another query", url)
	}
}
