package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

func TestParseProvenance(t *testing.T) {
	data := "# metis cassette provenance\r\n# scenario: swap/x\n# provider: openai\n# model: anthropic:claude-sonnet-4-6\n# source: live\n# endpoint: http://127.0.0.1:8787\n# recorded_at: 2026-05-01T12:00:00Z\n# metis_version: v9\n# future_field: ignored\n---\nversion: 2\n"
	p, err := replay.ParseProvenance("c.yaml", []byte(data))
	require.NoError(t, err)
	assert.Equal(t, replay.Provenance{
		Scenario: "swap/x", Provider: "openai", Model: "anthropic:claude-sonnet-4-6", Source: replay.SourceLive,
		Endpoint: "http://127.0.0.1:8787", RecordedAt: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), MetisVersion: "v9",
	}, p)
}

func TestParseProvenanceErrors(t *testing.T) {
	const ok = "# metis cassette provenance\n# provider: openai\n# source: live\n# recorded_at: 2026-05-01T12:00:00Z\n"
	tests := map[string]string{
		"":                         "c.yaml:1: empty file, no provenance header",
		"---\nversion: 2\n":        `c.yaml:1: no provenance header (want the first line "# metis cassette provenance")`,
		ok + "# nonsense\n":        `c.yaml:5: provenance line "# nonsense" is not "# key: value"`,
		ok + "# source: tape\n":    `c.yaml:5: source: want live, emulator or imported, got "tape"`,
		ok + "# match: fuzzy\n":    `c.yaml:5: match: want exact or endpoint, got "fuzzy"`,
		ok + "# match: endpoint\n": "c.yaml: match: endpoint is only for imported cassettes (source is live); re-record it to match exactly",
		"# metis cassette provenance\n# provider: x\n# source: imported\n# recorded_at: 2026-05-01T12:00:00Z\n": "c.yaml: an imported cassette's provenance needs origin_file and origin_format lines",
		ok + "# recorded_at: today\n": `c.yaml:5: recorded_at: want an RFC 3339 time, got "today"`,
		"# metis cassette provenance\n# source: live\n# recorded_at: 2026-05-01T12:00:00Z\n": "c.yaml: provenance header has no provider line",
		"# metis cassette provenance\n# provider: x\n# source: live\n---\n":                  "c.yaml: provenance header has no recorded_at line",
	}
	for data, want := range tests {
		_, err := replay.ParseProvenance("c.yaml", []byte(data))
		assert.EqualError(t, err, want, "%q", data)
	}
}

func FuzzParseProvenance(f *testing.F) {
	f.Add([]byte("# metis cassette provenance\n# provider: openai\n# source: live\n# recorded_at: 2026-05-01T12:00:00Z\n---\n"))
	f.Add([]byte("# metis cassette provenance\n#:\n#\n"))
	f.Add([]byte("\x00\r\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := replay.ParseProvenance("c.yaml", data)
		if err == nil && (p.Provider == "" || p.RecordedAt.IsZero()) {
			t.Fatalf("accepted a header without provider or recorded_at: %q", data)
		}
	})
}
