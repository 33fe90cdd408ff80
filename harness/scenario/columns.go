package scenario

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/scenarios"
)

// DataFiles are the files at the top of the scenario directory that are
// not scenarios.
var DataFiles = map[string]bool{"columns.yaml": true, "spec-cases.yaml": true}

// Wire formats, as columns and per_wire name them.
const (
	WireAnthropic = "anthropic"
	WireResponses = "responses"
	WireChat      = "chat"
	WireGemini    = "gemini"
	WireOllama    = "ollama"
	// WireConverse is Amazon Bedrock's Converse API.
	WireConverse = "converse"
)

// Column is one column of the conformance matrix: a model standing for
// an adapter and wire dialect (scenarios/columns.yaml).
type Column struct {
	Name  string   `yaml:"name" json:"name"`
	Model string   `yaml:"model" json:"model"`
	Wire  string   `yaml:"wire" json:"wire"`
	Tags  []string `yaml:"tags" json:"tags,omitempty"`
}

// SelectedBy reports whether a scenario's columns: entry sel names c or
// one of its tags.
func (c Column) SelectedBy(sel string) bool {
	return sel == c.Name || slices.Contains(c.Tags, sel)
}

// ParseColumns reads a columns file (the format of scenarios/columns.yaml);
// file names it in errors.
func ParseColumns(file string, data []byte) ([]Column, error) {
	var doc struct {
		Columns []Column `yaml:"columns"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	seen := map[string]bool{}
	for i, c := range doc.Columns {
		where := fmt.Sprintf("%s: columns[%d]", file, i)
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("%s: no name", where)
		case seen[c.Name]:
			return nil, fmt.Errorf("%s: name %q is used twice", where, c.Name)
		case !strings.Contains(c.Model, ":"):
			return nil, fmt.Errorf("%s (%s): model %q is not a canonical provider:name id", where, c.Name, c.Model)
		case c.Wire == "":
			return nil, fmt.Errorf("%s (%s): no wire", where, c.Name)
		}
		seen[c.Name] = true
	}
	if len(doc.Columns) == 0 {
		return nil, fmt.Errorf("%s: no columns", file)
	}
	return doc.Columns, nil
}

var (
	defaultColumnsOnce sync.Once
	defaultColumns     []Column
	defaultColumnsErr  error
)

// DefaultColumns returns the columns of scenarios/columns.yaml.
func DefaultColumns() ([]Column, error) {
	defaultColumnsOnce.Do(func() {
		defaultColumns, defaultColumnsErr = ParseColumns("scenarios/columns.yaml", scenarios.Columns)
	})
	return slices.Clone(defaultColumns), defaultColumnsErr
}
