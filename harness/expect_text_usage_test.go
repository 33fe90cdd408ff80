package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestExpectTextAndUsage replays the hand-written e2e cassette against
// exact text and usage expectations, right and wrong.
func TestExpectTextAndUsage(t *testing.T) {
	base, err := os.ReadFile("testdata/e2e/scenarios/basic/hello.yaml")
	require.NoError(t, err)
	tests := []struct {
		name, expect string
		ok           bool
		message      string
	}{
		{"right", "      text: Hello there!\n      usage: {input_tokens: 12, output_tokens: 4, cached_input_tokens: 0, estimated: false}\n", true, ""},
		{"wrong text", "      text: Hello there\n", false, `text: response text "Hello there!", want "Hello there"`},
		{"wrong usage", "      usage: {input_tokens: 13, output_tokens: 4, reasoning_tokens: 2}\n", false, "usage: input_tokens 12, want 13; reasoning_tokens 0, want 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			sc := filepath.Join(dir, "basic", "hello.yaml")
			require.NoError(t, os.MkdirAll(filepath.Dir(sc), 0o755))
			require.NoError(t, os.WriteFile(sc, []byte(strings.TrimRight(string(base), "\n")+"\n"+tt.expect), 0o644))
			res, err := harness.Run(context.Background(), harness.Config{
				ScenarioDir: dir, CassetteDir: "testdata/e2e/cassettes", NoGoldens: true, Factories: factories(),
			})
			require.NoError(t, err)
			run := res.Runs[0]
			if tt.ok {
				assert.Equal(t, harness.StatusPass, run.Status, run.Reason)
				return
			}
			assert.Equal(t, harness.StatusFail, run.Status)
			assert.Contains(t, run.Reason, tt.message)
		})
	}
}

func TestExpectUsageNeedsAField(t *testing.T) {
	_, err := scenario.Parse("x.yaml", []byte("id: a/b\ntitle: t\nmodels: [anthropic:claude-sonnet-4-6]\nsteps:\n  - user: hi\n  - call: {}\n    expect: {usage: {}}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x.yaml:7")
}
