package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

// yamlKind says what a YAML block is: a scenario (it has steps), a
// models.yaml (adapters or models at the top), or "" for anything else.
func yamlKind(doc map[string]any) string {
	switch {
	case doc["steps"] != nil:
		return "scenario"
	case doc["adapters"] != nil || doc["models"] != nil:
		return "models"
	}
	return ""
}

// checkYAML checks one YAML block and returns its problems. A scenario is
// parsed against the schema and linted against reg and the matrix's
// columns, as `conform validate` does; an excerpt without id or title
// gets placeholders for them. A models.yaml is loaded by the registry
// and each adapter it defines is opened (typed options checked); one that
// defines only models is read with the default registry's adapters.
func checkYAML(b block, reg *adapters.Registry, cols []scenario.Column) []string {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(b.text), &doc); err != nil {
		return []string{fmt.Sprintf("%s: YAML that does not parse: %v", b.where(), err)}
	}
	if b.kind == "fragment" {
		return nil
	}
	var errs []string
	fail := func(err error) []string {
		for _, l := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
			errs = append(errs, fmt.Sprintf("%s: %s", b.where(), inDocs(b, l)))
		}
		return errs
	}
	switch yamlKind(doc) {
	case "scenario":
		src := b.text
		if doc["id"] == nil {
			src += "id: docs/excerpt\n"
		}
		if doc["title"] == nil {
			src += "title: an excerpt in the docs\n"
		}
		sc, err := scenario.Parse("block", []byte(src))
		if err != nil {
			return fail(err)
		}
		scs := []*scenario.Scenario{sc}
		if e := scenario.Lint(scs, reg); e != nil {
			fail(e)
		}
		if e := scenario.LintColumns(scs, cols); e != nil {
			fail(e)
		}
		return errs
	case "models":
		src := b.text
		if doc["adapters"] == nil {
			def, err := defaultAdapters()
			if err != nil {
				return fail(err)
			}
			src += def
		}
		r, err := adapters.LoadRegistry(strings.NewReader(src), "block")
		if err != nil {
			return fail(err)
		}
		if doc["adapters"] != nil {
			for _, name := range r.Adapters() {
				a, err := r.Open(name, providers.Factories(), func(string) string { return "docs-test-value" }, nil)
				if err != nil {
					fail(err)
					continue
				}
				a.Close()
			}
		}
		return errs
	}
	return []string{fmt.Sprintf("%s: a YAML block that is neither a scenario (steps) nor a models.yaml (adapters, models); mark it ```yaml fragment to check only its syntax", b.where())}
}

// blockPosRE finds the positions the loaders give inside a block, whose
// file is named "block".
var blockPosRE = regexp.MustCompile(`\bblock:(\d+)`)

// inDocs rewrites a loader's "block:LINE" as the docs file and line.
func inDocs(b block, msg string) string {
	return blockPosRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "block:"))
		return b.file + ":" + strconv.Itoa(b.line+n)
	})
}

// defaultAdapters returns the adapters: section of the default
// models.yaml, to follow a block that defines only models.
func defaultAdapters() (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "adapters", "models.yaml"))
	if err != nil {
		return "", err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", err
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "adapters" {
			out, err := yaml.Marshal(map[string]*yaml.Node{"adapters": m.Content[i+1]})
			return "\n" + string(out), err
		}
	}
	return "", fmt.Errorf("adapters/models.yaml has no adapters")
}

// TestYAMLBlocks checks every YAML block of the docs.
func TestYAMLBlocks(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	cols, err := scenario.DefaultColumns()
	if err != nil {
		t.Fatal(err)
	}
	blocks := blocksOf(pages(t), "yaml")
	if len(blocks) < 5 {
		t.Fatalf("found %d YAML blocks; the block reader finds too few", len(blocks))
	}
	for _, b := range blocks {
		for _, e := range checkYAML(b, reg, cols) {
			t.Error(e)
		}
	}
}

// checkJSON checks one JSON block: it parses, and a canonical message
// (an object with a role and content) decodes and validates.
func checkJSON(b block) []string {
	if !json.Valid([]byte(b.text)) {
		var v any
		err := json.Unmarshal([]byte(b.text), &v)
		return []string{fmt.Sprintf("%s: JSON that does not parse: %v", b.where(), err)}
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal([]byte(b.text), &probe) != nil || probe["role"] == nil || probe["content"] == nil {
		return nil
	}
	m, err := canonical.DecodeMessage(bytes.TrimSpace([]byte(b.text)))
	if err != nil {
		return []string{fmt.Sprintf("%s: not a canonical message: %v", b.where(), err)}
	}
	if err := canonical.ValidateMessage(m); err != nil {
		return []string{fmt.Sprintf("%s: an invalid canonical message: %v", b.where(), err)}
	}
	return nil
}

// TestJSONBlocks checks every JSON block of the docs.
func TestJSONBlocks(t *testing.T) {
	blocks := blocksOf(pages(t), "json")
	if len(blocks) == 0 {
		t.Fatal("found no JSON block; the block reader finds too few")
	}
	for _, b := range blocks {
		for _, e := range checkJSON(b) {
			t.Error(e)
		}
	}
}
