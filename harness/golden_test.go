package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

func TestCompareGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b.json")

	diff, err := check.CompareGolden(path, []byte("x\n"), false)
	assert.True(t, errors.Is(err, check.ErrNoGolden))
	assert.Equal(t, "@@ line 1 @@\n+x\n", diff, "a missing golden diffs as all added")

	diff, err = check.CompareGolden(path, []byte("x\ny\n"), true)
	require.NoError(t, err)
	assert.Empty(t, diff, "update creates the file")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "x\ny\n", string(data))

	diff, err = check.CompareGolden(path, []byte("x\ny\n"), false)
	require.NoError(t, err)
	assert.Empty(t, diff)

	diff, err = check.CompareGolden(path, []byte("x\nz\n"), false)
	require.NoError(t, err)
	assert.Equal(t, "@@ line 1 @@\n x\n-y\n+z\n", diff)
	data, _ = os.ReadFile(path)
	assert.Equal(t, "x\ny\n", string(data), "no update without update")

	diff, err = check.CompareGolden(path, []byte("x\nz\n"), true)
	require.NoError(t, err)
	assert.Empty(t, diff)
	data, _ = os.ReadFile(path)
	assert.Equal(t, "x\nz\n", string(data))
	entries, _ := os.ReadDir(filepath.Dir(path))
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestGoldenDiff(t *testing.T) {
	assert.Empty(t, check.GoldenDiff([]byte("same"), []byte("same")))
	assert.Equal(t, "@@ line 1 @@\n-a\n+b\n", check.GoldenDiff([]byte("a\n"), []byte("b\n")))
}

func TestPaths(t *testing.T) {
	sc := parse(t, "s.yaml", `
id: swap/x
title: t
models: [anthropic:claude-sonnet-4-6, anthropic:claude-haiku-4-5, gemini:gemini-2.5-flash]
steps:
  - user: hi
  - swap: openai:gpt-5
`)
	if diff := cmp.Diff([]string{"anthropic", "openai"}, sc.Providers("anthropic:claude-sonnet-4-6")); diff != "" {
		t.Errorf("sc.Providers(anthropic:claude-sonnet-4-6) mismatch (-want +got):\n%s", diff)
	}
	// Two anthropic models: each gets its own anthropic cassette; every
	// run swaps to openai, so openai's are split too.
	assert.Equal(t, filepath.FromSlash("c/anthropic/swap/x@claude-sonnet-4-6.yaml"), scenario.CassettePath("c", sc, "anthropic:claude-sonnet-4-6", "anthropic"))
	assert.Equal(t, filepath.FromSlash("c/openai/swap/x@claude-haiku-4-5.yaml"), scenario.CassettePath("c", sc, "anthropic:claude-haiku-4-5", "openai"))
	// gemini is used only by the gemini run.
	assert.Equal(t, filepath.FromSlash("c/gemini/swap/x.yaml"), scenario.CassettePath("c", sc, "gemini:gemini-2.5-flash", "gemini"))
	assert.Equal(t, filepath.FromSlash("g/swap/x/gemini/gemini-2.5-flash"), scenario.GoldenDir("g", sc, "gemini:gemini-2.5-flash"))

	one := parse(t, "o.yaml", "id: tools/y\ntitle: t\nmodels: [anthropic:claude-sonnet-4-6, openai:gpt-5]\nsteps: [{user: hi}]\n")
	assert.Equal(t, filepath.FromSlash("c/openai/tools/y.yaml"), scenario.CassettePath("c", one, "openai:gpt-5", "openai"))
}

func TestSelect(t *testing.T) {
	a := parse(t, "a.yaml", "id: tools/a\ntitle: t\ntags: [tools]\nmodels: [anthropic:claude-sonnet-4-6, openai:gpt-5, gemini:gemini-2.5-flash]\nsteps: [{user: hi}]\n")
	b := parse(t, "b.yaml", "id: basic/b\ntitle: t\ntags: [basic]\nmodels: [openai:gpt-5]\nsteps: [{user: hi}]\n")
	names := func(ps []harness.Pair) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Scenario.ID+" "+p.Model)
		}
		return out
	}
	all := []*scenario.Scenario{a, b}
	if diff := cmp.Diff([]string{"basic/b openai:gpt-5", "tools/a anthropic:claude-sonnet-4-6", "tools/a openai:gpt-5", "tools/a gemini:gemini-2.5-flash"}, names(harness.Select(all, harness.Config{}))); diff != "" {
		t.Errorf("Select(Config{}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"basic/b openai:gpt-5", "tools/a openai:gpt-5"}, names(harness.Select(all, harness.Config{Models: []string{"openai"}}))); diff != "" {
		t.Errorf("Select(Config{Models: []string{openai}}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tools/a gemini:gemini-2.5-flash"}, names(harness.Select(all, harness.Config{Models: []string{"gemini:gemini-2.5-flash"}}))); diff != "" {
		t.Errorf("Select(Config{Models: []string{gemini:gemini-2.5-flash}}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"basic/b openai:gpt-5"}, names(harness.Select(all, harness.Config{Tags: []string{"basic"}}))); diff != "" {
		t.Errorf("Select(Config{Tags: []string{basic}}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tools/a anthropic:claude-sonnet-4-6", "tools/a openai:gpt-5", "tools/a gemini:gemini-2.5-flash"}, names(harness.Select(all, harness.Config{IDs: []string{"tools/*"}}))); diff != "" {
		t.Errorf("Select(Config{IDs: []string{tools/*}}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"basic/b openai:gpt-5", "tools/a openai:gpt-5"}, names(harness.Select(all, harness.Config{Shard: 0, Shards: 2}))); diff != "" {
		t.Errorf("Select(Config{Shard: 0, Shards: 2}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tools/a anthropic:claude-sonnet-4-6", "tools/a gemini:gemini-2.5-flash"}, names(harness.Select(all, harness.Config{Shard: 1, Shards: 2}))); diff != "" {
		t.Errorf("Select(Config{Shard: 1, Shards: 2}) mismatch (-want +got):\n%s", diff)
	}
}
