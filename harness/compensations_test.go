package harness_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

// compensationsScenario is a scenario whose compensations: block starts
// on line 5, indented by two spaces.
func compensationsScenario(block string) string {
	return "id: c\ntitle: t\nmodels: [openai:gpt-5]\ncompensations:\n" + block + "steps:\n  - user: hi\n  - call: {}\n"
}

// A compensations: block is checked by the registry's parser: its
// errors name the file, the line and column of the offending value (or
// key) and the field as models.yaml would.
func TestParseCompensations(t *testing.T) {
	tests := []struct {
		name  string
		block string
		want  map[string]any // the block as loaded, when it is valid
		err   string
	}{
		{
			name:  "every compensation",
			block: "  prompt_addendum: Call tools.\n  max_tools: 3\n  core_tools: [read_file]\n  force_tool_first_turn: true\n  retry: {max_retries: 2, base_delay: 2s, max_delay: 1m, on: [server_error, tool_call_state]}\n  tier_stand_in: true\n",
			want: map[string]any{
				"prompt_addendum": "Call tools.", "max_tools": json.Number("3"), "core_tools": []any{"read_file"},
				"force_tool_first_turn": true, "tier_stand_in": true,
				"retry": map[string]any{"max_retries": json.Number("2"), "base_delay": "2s", "max_delay": "1m", "on": []any{"server_error", "tool_call_state"}},
			},
		},
		{
			name:  "empty",
			block: "  {}\n",
			want:  map[string]any{},
		},
		{
			name:  "core_tools without max_tools",
			block: "  core_tools: [read_file]\n",
			err:   "c.yaml:5:15: compensations.core_tools: core_tools needs max_tools: it says which tools the cap keeps",
		},
		{
			name:  "unknown error class", // at the list: the registry names no index
			block: "  retry: {max_retries: 1, on: [server_error, teapot]}\n",
			err:   `c.yaml:5:31: compensations.retry.on: "teapot" is neither an error class nor an error code`,
		},
		{
			name:  "max_delay under base_delay",
			block: "  retry:\n    max_retries: 1\n    base_delay: 10s\n    max_delay: 1s\n    on: [network]\n",
			err:   "c.yaml:8:16: compensations.retry.max_delay: 1s is less than base_delay 10s",
		},
		{
			name:  "max_tools not a whole number", // the tree keeps 2.0 as written
			block: "  max_tools: 2.0\n",
			err:   `c.yaml:5:14: compensations.max_tools: want an integer, got "2.0"`,
		},
		{
			name:  "schema: unknown key",
			block: "  max_tool: 3\n",
			err:   `c.yaml:5:3: compensations: unknown key "max_tool"`,
		},
		{
			name:  "schema: retry without on",
			block: "  retry: {max_retries: 1}\n",
			err:   "c.yaml:5:10: compensations.retry: missing property 'on'",
		},
		{
			name:  "schema: max_tools under 1",
			block: "  max_tools: 0\n",
			err:   "c.yaml:5:14: compensations.max_tools: minimum: got 0, want 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenario.Parse("c.yaml", []byte(compensationsScenario(tt.block)))
			if tt.err != "" {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), tt.err), "got %q, want it to start with %q", err.Error(), tt.err)
				var e *scenario.Error
				assert.ErrorAs(t, err, &e)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, sc.Compensations)
		})
	}
}

func TestLintCompensationsCoreTools(t *testing.T) {
	sc := parse(t, "c.yaml", `id: c
title: t
models: [openai:gpt-5]
compensations: {max_tools: 1, core_tools: [read_file, edit_file]}
tools: [{name: read_file, description: d, input_schema: {type: object}}]
steps:
  - user: hi
  - call: {}
`)
	errs := scenario.Lint([]*scenario.Scenario{sc}, nil)
	require.Len(t, errs, 1)
	assert.Equal(t, `c.yaml:4:55: tool "edit_file" is not defined in tools (defined: read_file) [undefined-tool]`, errs[0].Error())
}

// TestSchemaCompensations keeps the schema's compensations keys in step
// with adapters.Compensations and adapters.RetryProfile.
func TestSchemaCompensations(t *testing.T) {
	type object struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var doc struct {
		Properties struct {
			Compensations struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"compensations"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(scenario.SchemaJSON, &doc))
	comp := doc.Properties.Compensations.Properties
	var retry object
	require.NoError(t, json.Unmarshal(comp["retry"], &retry))
	assert.Equal(t, jsonNames[adapters.Compensations](), sortedKeys(comp))
	assert.Equal(t, jsonNames[adapters.RetryProfile](), sortedKeys(retry.Properties))
}

// jsonNames returns the JSON names of T's fields, sorted.
func jsonNames[T any]() []string {
	var out []string
	typ := reflect.TypeFor[T]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
