package scenario_test

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every committed scenario file starts with the yaml-language-server line
// that points editors at scenarios/schema.json, by a relative path that
// resolves, so that an editor validates while you type.
func TestScenarioFilesNameTheirSchema(t *testing.T) {
	root := filepath.Join("..", "..", "scenarios")
	n := 0
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		if filepath.Dir(path) == root && (d.Name() == "columns.yaml" || d.Name() == "spec-cases.yaml") {
			return nil // the matrix's columns and the specified cases: data, not scenarios
		}
		n++
		rel, err := filepath.Rel(filepath.Dir(path), filepath.Join(root, "schema.json"))
		require.NoError(t, err)
		want := "# yaml-language-server: $schema=" + filepath.ToSlash(rel)
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Scan()
		assert.Equal(t, want, sc.Text(), "%s: the first line names the schema for editors; add it as the file's first line", path)
		target := strings.TrimPrefix(sc.Text(), "# yaml-language-server: $schema=")
		assert.FileExists(t, filepath.Join(filepath.Dir(path), filepath.FromSlash(target)))
		return nil
	}))
	assert.Positive(t, n)
}

// .vscode/settings.json maps the scenario files to their schema for the
// YAML extension (the same yaml-language-server).
func TestVSCodeMapsScenariosToTheSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".vscode", "settings.json"))
	require.NoError(t, err)
	var settings struct {
		Schemas map[string]any `json:"yaml.schemas"`
	}
	require.NoError(t, json.Unmarshal(data, &settings))
	assert.Equal(t, "scenarios/**/*.yaml", settings.Schemas["./scenarios/schema.json"])
	assert.FileExists(t, filepath.Join("..", "..", "scenarios", "schema.json"))
}
