package harness_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
)

func TestSpecRefs(t *testing.T) {
	sp, err := scenario.DefaultSpec()
	require.NoError(t, err)
	tests := []struct {
		ref string
		ok  bool
	}{
		{"000 §5.2.1", true},
		{"000 §10.1.14", true},
		{"000 §10.1.15", false},
		{"000 §6.2", true},
		{"000 §6.9", false},
		{"001 §11.1.7", true},
		{"003 §10.2 Simple chat", true},
		{"003 §10.2 Simple chats", false},
		{"003 §10.2", true},
		{"004 008-error-finish-reason-with-malformed-tool-calls", true},
		{"004 009-streaming", false},
		{"004 §8.2", true},
		{"002 Native APIs", true},
		{"002 Per-Provider Quirks", false},
		{"005 §1", false},
		{"§5.2", false},
		{"", false},
	}
	for _, tt := range tests {
		err := sp.CheckRef(tt.ref)
		assert.Equal(t, tt.ok, err == nil, "%q: %v", tt.ref, err)
	}
}

func TestParseSpecErrors(t *testing.T) {
	seeds := "seeds:\n  \"000\": {title: t, sections: [\"1\"]}\n"
	tests := []struct{ src, want string }{
		{seeds + "cases:\n  - {id: x, title: t, applies_to: [all]}", `id "x" is not "<seed> <reference>"`},
		{seeds + "cases:\n  - {id: 000 §1.1, title: t, applies_to: [all]}\n  - {id: 000 §1.1, title: u, applies_to: [all]}", `id "000 §1.1" is used twice`},
		{seeds + "cases:\n  - {id: 000 §1.1, applies_to: [all]}", "no title"},
		{seeds + "cases:\n  - {id: 000 §1.1, title: t}", "applies_to is empty"},
		{seeds + "cases:\n  - {id: 000 §1.1, title: t, applies_to: [all], elsewhere: x_test.go}", "a case asserted elsewhere applies to no column"},
		{seeds + "cases:\n  - {id: 009 §1.1, title: t, applies_to: [all]}", "seed 009 is not listed"},
		{seeds + "cases:\n  - {id: 000 §1.1, title: t, applies_to: [all], colour: red}", "field colour not found"},
	}
	for _, tt := range tests {
		_, err := scenario.ParseSpec("s.yaml", []byte(tt.src))
		require.Error(t, err, tt.src)
		assert.Contains(t, err.Error(), tt.want)
	}
}

func TestTraceFindsGaps(t *testing.T) {
	sp, err := scenario.ParseSpec("s.yaml", []byte(`
seeds:
  "000": {title: t, sections: ["1"]}
cases:
  - {id: "000 §1.1", title: every column, applies_to: [all]}
  - {id: "000 §1.2", title: tools only, applies_to: [all], requires: [thinking]}
  - {id: "000 §1.3", title: local only, applies_to: [local]}
  - {id: "000 §1.4", title: harness, applies_to: [all], every_run: the harness does it}
  - {id: "000 §1.5", title: nowhere, applies_to: [], elsewhere: x_test.go}
`))
	require.NoError(t, err)
	cfg := harness.Config{Factories: factories(), Columns: []scenario.Column{
		{Name: "anthropic", Model: "anthropic:claude-sonnet-4-6", Wire: "anthropic"},
		{Name: "vllm", Model: "vllm:qwen2.5-7b-instruct", Wire: "chat", Tags: []string{"local"}},
	}}
	scs := []*scenario.Scenario{
		parse(t, "a.yaml", "id: a\ntitle: t\nspec: [\"000 §1.1\", \"000 §1.2\"]\nsteps: [{user: hi}]\n"),
		parse(t, "b.yaml", "id: b\ntitle: t\nspec: [\"000 §1.3\"]\nmodels: [anthropic:claude-sonnet-4-6]\nsteps: [{user: hi}]\n"),
		parse(t, "c.yaml", "id: c\ntitle: t\nspec: [\"000 §1.1\"]\nmodels: [vllm:qwen2.5-7b-instruct]\nrequires: [images]\nsteps: [{user: hi}]\n"),
	}
	rows, err := harness.Trace(scs, sp, cfg)
	require.NoError(t, err)
	require.Len(t, rows, 5)
	if diff := cmp.Diff([]string{"anthropic", "vllm"}, rows[0].Columns); diff != "" {
		t.Errorf("rows[0].Columns mismatch (-want +got):\n%s", diff)
	}
	assert.Empty(t, rows[0].Missing, "a covers both columns")
	assert.Len(t, rows[0].Runs, 2, "c's run on vllm is skipped for lack of images, so it asserts nothing")
	if diff := cmp.Diff([]string{"anthropic"}, rows[1].Columns); diff != "" {
		t.Errorf("only anthropic declares thinking (-want +got):\n%s", diff)
	}
	assert.Empty(t, rows[1].Missing)
	if diff := cmp.Diff([]string{"vllm"}, rows[2].Missing); diff != "" {
		t.Errorf("b runs on anthropic, not on the local column (-want +got):\n%s", diff)
	}
	assert.True(t, rows[2].Gap())
	assert.False(t, rows[3].Gap(), "enforced on every run")
	assert.Empty(t, rows[4].Columns)
	assert.False(t, rows[4].Gap(), "asserted elsewhere")
}

func TestLintSpecRefs(t *testing.T) {
	sc := parse(t, "s.yaml", "id: s\ntitle: t\nspec: [\"000 §5.2.1\", \"000 §99\"]\nmodels: [anthropic:claude-sonnet-4-6]\nsteps: [{user: hi}]\n")
	errs := scenario.Lint([]*scenario.Scenario{sc}, nil)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `s.yaml:3:22: "000 §99": seed 000 has no section §99 and no such test case`)
}

// TestSpecTraceHasNoGap is the traceability gate: every test case the
// specification names (scenarios/spec-cases.yaml) is asserted by the
// built-in suite on every column it applies to, unless the harness
// enforces it on every run or it names the Go test that asserts it.
func TestSpecTraceHasNoGap(t *testing.T) {
	scs, err := scenario.LoadDir("../scenarios")
	require.NoError(t, err)
	sp, err := scenario.DefaultSpec()
	require.NoError(t, err)
	rows, err := harness.Trace(scs, sp, harness.Config{Factories: factories()})
	require.NoError(t, err)
	require.Len(t, rows, len(sp.Cases))
	for _, row := range rows {
		assert.False(t, row.Gap(), "%s (%s): no scenario asserts it on %v; name it in a scenario's spec: that runs there", row.Case.ID, row.Case.Title, row.Missing)
		if row.Case.EveryRun == "" && row.Case.Elsewhere == "" {
			assert.NotEmpty(t, row.Runs, "%s: no scenario names it", row.Case.ID)
		}
	}
}
