package harness

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

// columns returns the columns the run uses: Config.Columns, else the
// default ones. Callers only read the slice: the default one is shared
// by every call (it was copied per call, tens of thousands of times a
// whole-suite run).
func (c *Config) columns() []scenario.Column {
	if c.Columns != nil {
		return c.Columns
	}
	cols, _ := defaultColumns() // a broken embedded file fails TestColumns
	return cols
}

// defaultColumns is scenario.DefaultColumns, copied once per process.
var defaultColumns = sync.OnceValues(scenario.DefaultColumns)

// Matrix returns the models sc runs on: its models, or else every column
// Columns selects whose model declares each capability of Requires and
// none of Lacks, in column order. Declarations come from the adapters
// cfg's registry and factories build (without a network; the built-in
// adapters when Factories is empty).
func (c *Config) Matrix(sc *scenario.Scenario) ([]string, error) {
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

func (c *Config) matrix(sc *scenario.Scenario, caps *capsCache) ([]string, error) {
	var out []string
	for _, col := range c.columns() {
		if len(sc.Columns) > 0 && !slices.ContainsFunc(sc.Columns, col.SelectedBy) {
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
func (c *Config) expand(scs []*scenario.Scenario) ([]*scenario.Scenario, error) {
	reg, err := c.registry()
	if err != nil {
		return nil, err
	}
	caps := capsCache{cfg: c, reg: reg, got: map[string]canonical.Capabilities{}}
	out := make([]*scenario.Scenario, len(scs))
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
			return scenario.WireChat
		}
		if d, _ := ac.Options["dialect"].(string); d == "chat" {
			return scenario.WireChat
		}
		return scenario.WireResponses
	case "openaicompat":
		return scenario.WireChat
	case "azure": // OpenAI's dialects on Azure; Responses by default
		if d, _ := mc.Options["dialect"].(string); d == "chat" {
			return scenario.WireChat
		}
		if d, _ := ac.Options["dialect"].(string); d == "chat" {
			return scenario.WireChat
		}
		return scenario.WireResponses
	case "vertex":
		return scenario.WireGemini
	case "vertex-anthropic", "bedrock":
		return scenario.WireAnthropic
	case "ollama-native":
		return scenario.WireOllama
	case "bedrock-converse":
		return scenario.WireConverse
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
