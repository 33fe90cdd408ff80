package harness

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/scenarios"
)

// dataFiles are the files at the top of the scenario directory that are
// not scenarios.
var dataFiles = map[string]bool{"columns.yaml": true, "spec-cases.yaml": true}

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

// selectedBy reports whether a scenario's columns: entry sel names c or
// one of its tags.
func (c Column) selectedBy(sel string) bool {
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

func (c *Config) columns() []Column {
	if c.Columns != nil {
		return c.Columns
	}
	cols, _ := DefaultColumns() // a broken embedded file fails TestColumns
	return cols
}

// Matrix returns the models sc runs on: its models, or else every column
// Columns selects whose model declares each capability of Requires and
// none of Lacks, in column order. Declarations come from the adapters
// cfg's registry and factories build (without a network; the built-in
// adapters when Factories is empty).
func (c *Config) Matrix(sc *Scenario) ([]string, error) {
	if len(sc.Models) > 0 {
		return sc.Models, nil
	}
	reg, err := c.registry()
	if err != nil {
		return nil, err
	}
	caps := capsCache{cfg: c, reg: reg, got: map[string]canonical.Capabilities{}}
	return c.matrix(sc, &caps)
}

func (c *Config) matrix(sc *Scenario, caps *capsCache) ([]string, error) {
	var out []string
	for _, col := range c.columns() {
		if len(sc.Columns) > 0 && !slices.ContainsFunc(sc.Columns, col.selectedBy) {
			continue
		}
		cp, err := caps.of(col.Model)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name, err)
		}
		if meets(cp, sc.Requires, sc.Lacks) && !slices.Contains(out, col.Model) {
			out = append(out, col.Model)
		}
	}
	return out, nil
}

// capsCache opens each adapter once to read a model's declared
// capabilities.
type capsCache struct {
	cfg *Config
	reg *adapters.Registry
	got map[string]canonical.Capabilities
}

func (cc *capsCache) of(model string) (canonical.Capabilities, error) {
	if c, ok := cc.got[model]; ok {
		return c, nil
	}
	mc, err := cc.reg.Resolve(model)
	if err != nil {
		return canonical.Capabilities{}, err
	}
	factories := cc.cfg.Factories
	if len(factories) == 0 {
		// The matrix is the built-in adapters' declarations unless the
		// caller brings its own.
		factories = providers.Factories()
	}
	a, err := cc.reg.Open(mc.Adapter, factories, cc.cfg.getenv, nil)
	if err != nil {
		return canonical.Capabilities{}, err
	}
	defer a.Close()
	c := a.Capabilities(model)
	cc.got[model] = c
	return c, nil
}

// expand returns the scenarios with their matrices filled in from the
// columns: a scenario that names models is returned as it is, one that
// does not as a copy whose Models the columns give (FromColumns set).
func (c *Config) expand(scs []*Scenario) ([]*Scenario, error) {
	reg, err := c.registry()
	if err != nil {
		return nil, err
	}
	caps := capsCache{cfg: c, reg: reg, got: map[string]canonical.Capabilities{}}
	out := make([]*Scenario, len(scs))
	var errs []error
	for i, sc := range scs {
		out[i] = sc
		if len(sc.Models) > 0 || sc.FromColumns {
			continue
		}
		models, err := c.matrix(sc, &caps)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", sc.File, err))
			continue
		}
		cp := *sc
		cp.Models, cp.FromColumns = models, true
		out[i] = &cp
	}
	return out, errors.Join(errs...)
}

// wireOf returns the wire format a call to model speaks: its column's,
// else what its adapter type and dialect say ("chat" for
// OpenAI-compatible servers), else the adapter type.
func (c *Config) wireOf(reg *adapters.Registry, model string) string {
	for _, col := range c.columns() {
		if col.Model == model {
			return col.Wire
		}
	}
	mc, err := reg.Resolve(model)
	if err != nil {
		return ""
	}
	ac, err := reg.Config(mc.Adapter, c.getenv)
	if err != nil {
		return ""
	}
	switch ac.Type {
	case "openai":
		if d, _ := mc.Options["dialect"].(string); d == "chat" {
			return WireChat
		}
		if d, _ := ac.Options["dialect"].(string); d == "chat" {
			return WireChat
		}
		return WireResponses
	case "openaicompat":
		return WireChat
	case "azure": // OpenAI's dialects on Azure; Responses by default
		if d, _ := mc.Options["dialect"].(string); d == "chat" {
			return WireChat
		}
		if d, _ := ac.Options["dialect"].(string); d == "chat" {
			return WireChat
		}
		return WireResponses
	case "vertex":
		return WireGemini
	case "vertex-anthropic", "bedrock":
		return WireAnthropic
	case "ollama-native":
		return WireOllama
	case "bedrock-converse":
		return WireConverse
	}
	return ac.Type
}

// modelKeys are the names per_model may use for model: its id, the names
// of its columns, and its provider.
func (c *Config) modelKeys(model string) []string {
	keys := []string{canonical.ProviderOf(model)}
	for _, col := range c.columns() {
		if col.Model == model {
			keys = append(keys, col.Name)
		}
	}
	return append(keys, model)
}

// columnOf returns the name of model's first column, or "".
func (c *Config) columnOf(model string) string {
	for _, col := range c.columns() {
		if col.Model == model {
			return col.Name
		}
	}
	return ""
}

// ModelKeys returns the names model goes by in the matrix: its provider,
// the names of its columns, its id; and the wire format a call to it
// speaks ("anthropic", "responses", "chat", ...). Certification declines
// runs by them.
func (c *Config) ModelKeys(model string) (keys []string, wire string) {
	reg, err := c.registry()
	if err != nil {
		return c.modelKeys(model), ""
	}
	return c.modelKeys(model), c.wireOf(reg, model)
}
