package harness_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestColumnsCoverRegistry holds scenarios/columns.yaml to the registry:
// every column's model is in it, and every adapter of adapters/models.yaml
// (and every OpenAI dialect its models use) has a column, so that an
// adapter added later cannot escape the matrix.
func TestColumnsCoverRegistry(t *testing.T) {
	cols, err := scenario.DefaultColumns()
	require.NoError(t, err)
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, c := range cols {
		mc, err := reg.Resolve(c.Model)
		require.NoError(t, err, "column %s", c.Name)
		covered[mc.Adapter] = true
		if d, _ := mc.Options["dialect"].(string); d != "" {
			covered[mc.Adapter+"/"+d] = true
		}
	}
	for _, name := range reg.Adapters() {
		assert.True(t, covered[name], "adapter %s of the registry has no column in scenarios/columns.yaml", name)
	}
	for _, m := range reg.Models() {
		if d, _ := m.Options["dialect"].(string); d != "" {
			assert.True(t, covered[m.Adapter+"/"+d], "the %s dialect of adapter %s (model %s) has no column", d, m.Adapter, m.ID)
		}
	}
}

func TestParseColumnsErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"columns: []", "c.yaml: no columns"},
		{"columns:\n  - {model: a:b, wire: chat}", "c.yaml: columns[0]: no name"},
		{"columns:\n  - {name: x, model: a:b, wire: chat}\n  - {name: x, model: a:c, wire: chat}", `c.yaml: columns[1]: name "x" is used twice`},
		{"columns:\n  - {name: x, model: ab, wire: chat}", `columns[0] (x): model "ab" is not a canonical provider:name id`},
		{"columns:\n  - {name: x, model: a:b}", "columns[0] (x): no wire"},
		{"columns:\n  - {name: x, model: a:b, wire: chat, colour: red}", "field colour not found"},
		{"columns: {", "c.yaml: yaml:"},
	}
	for _, tt := range tests {
		_, err := scenario.ParseColumns("c.yaml", []byte(tt.src))
		require.Error(t, err, tt.src)
		assert.Contains(t, err.Error(), tt.want)
	}
}

func TestMatrixFromColumns(t *testing.T) {
	cfg := harness.Config{Factories: factories(), Columns: []scenario.Column{
		{Name: "anthropic", Model: "anthropic:claude-sonnet-4-6", Wire: "anthropic", Tags: []string{"hosted"}},
		{Name: "chat", Model: "openai:gpt-4.1", Wire: "chat", Tags: []string{"hosted"}},
		{Name: "vllm", Model: "vllm:qwen2.5-7b-instruct", Wire: "chat", Tags: []string{"local"}},
	}}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"every column", "", []string{"anthropic:claude-sonnet-4-6", "openai:gpt-4.1", "vllm:qwen2.5-7b-instruct"}},
		{"requires", "requires: [thinking]\n", []string{"anthropic:claude-sonnet-4-6"}},
		{"lacks", "lacks: [images]\n", []string{"vllm:qwen2.5-7b-instruct"}},
		{"by tag", "columns: [hosted]\n", []string{"anthropic:claude-sonnet-4-6", "openai:gpt-4.1"}},
		{"by name and requirement", "columns: [chat, vllm]\nrequires: [images]\n", []string{"openai:gpt-4.1"}},
		{"explicit models win", "models: [gemini:gemini-2.5-flash]\n", []string{"gemini:gemini-2.5-flash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := parse(t, "m.yaml", "id: m\ntitle: t\n"+tt.src+"steps: [{user: hi}]\n")
			got, err := cfg.Matrix(sc)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			pairs := harness.Select([]*scenario.Scenario{sc}, cfg)
			models := make([]string, len(pairs))
			for i, p := range pairs {
				models[i] = p.Model
				assert.True(t, slices.Equal(p.Scenario.Models, tt.want), "the pair's scenario carries its matrix")
			}
			if diff := cmp.Diff(tt.want, models); diff != "" {
				t.Errorf("models mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLintColumns(t *testing.T) {
	cols, err := scenario.DefaultColumns()
	require.NoError(t, err)
	sc := parse(t, "c.yaml", "id: c\ntitle: t\ncolumns: [compat, nope]\nsteps: [{user: hi}]\n")
	errs := scenario.LintColumns([]*scenario.Scenario{sc}, cols)
	require.Len(t, errs, 1)
	assert.True(t, strings.HasPrefix(errs[0].Error(), `c.yaml:3:19: "nope" names no column and no column tag`), errs[0].Error())
}
