package record_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/record"
)

// writeKey is a made-up key (listed in secrets_test.go's fakeSecrets).
const writeKey = "sk-test-WRITE-KEY-0123456789abcdef"

func writeInteraction(body string) *cassette.Interaction {
	return &cassette.Interaction{
		Request: cassette.Request{
			Method:  http.MethodPost,
			URL:     "https://api.example.test/v1/chat/completions",
			Headers: http.Header{"Authorization": {"Bearer " + writeKey}, "Content-Type": {"application/json"}},
			Body:    `{"model":"m"}`,
		},
		Response: cassette.Response{
			Code:    http.StatusOK,
			Headers: http.Header{"Content-Type": {"application/json"}},
			Body:    body,
		},
	}
}

// WriteCassette writes a scrubbed cassette under its provenance header,
// adding .yaml when the path lacks it; an identical rewrite reports
// unchanged and leaves the file alone; a second interaction is numbered;
// no interaction at all is an error naming the path.
func TestWriteCassette(t *testing.T) {
	dir := t.TempDir()
	prov := record.Provenance{Scenario: "basic/text", Provider: "openai", Model: "openai:m", Source: "imported", OriginFile: "in.har", OriginFormat: "har", RecordedAt: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}

	_, err := record.WriteCassette(filepath.Join(dir, "none"), prov, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "none.yaml")+": no interaction to write")
	assert.NoFileExists(t, filepath.Join(dir, "none.yaml"))

	path := filepath.Join(dir, "c")
	unchanged, err := record.WriteCassette(path, prov, []*cassette.Interaction{writeInteraction(`{"a":1}`), writeInteraction(`{"b":2}`)}, writeKey)
	require.NoError(t, err)
	assert.False(t, unchanged)
	data, err := os.ReadFile(path + ".yaml")
	require.NoError(t, err)
	text := string(data)
	assert.True(t, strings.HasPrefix(text, string(prov.Header())), "the provenance header comes first:\n%s", text)
	assert.NotContains(t, text, writeKey)
	assert.Contains(t, text, `{"a":1}`)
	assert.Contains(t, text, "id: 1", "the second interaction is numbered 1")
	got, err := record.ReadProvenance(path + ".yaml")
	require.NoError(t, err)
	assert.Equal(t, "basic/text", got.Scenario)

	before, err := os.Stat(path + ".yaml")
	require.NoError(t, err)
	unchanged, err = record.WriteCassette(path+".yaml", prov, []*cassette.Interaction{writeInteraction(`{"a":1}`), writeInteraction(`{"b":2}`)}, writeKey)
	require.NoError(t, err)
	assert.True(t, unchanged, "the same interactions again")
	after, err := os.Stat(path + ".yaml")
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime(), "an unchanged cassette is not rewritten")

	unchanged, err = record.WriteCassette(path, prov, []*cassette.Interaction{writeInteraction(`{"a":3}`)})
	require.NoError(t, err)
	assert.False(t, unchanged)
	data, err = os.ReadFile(path + ".yaml")
	require.NoError(t, err)
	assert.Contains(t, string(data), `{"a":3}`)
	assert.NotContains(t, string(data), `{"b":2}`)

	// A cassette path taken by a directory cannot be written: an error
	// naming the path, the directory as it was, no temporary file left.
	taken := filepath.Join(dir, "taken.yaml")
	require.NoError(t, os.MkdirAll(filepath.Join(taken, "inside"), 0o755))
	_, err = record.WriteCassette(taken, prov, []*cassette.Interaction{writeInteraction(`{"a":4}`)})
	require.Error(t, err, "a directory is in the way")
	assert.Contains(t, err.Error(), taken)
	assert.DirExists(t, filepath.Join(taken, "inside"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"c.yaml", "taken.yaml"}, names, "no temporary file left beside the cassettes")
}
