package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/compensate"
)

// checkModel is the model a scenario's compensations: block is checked
// on at load, before any matrix model is known.
const checkModel = "scenario:model"

// compensations checks a scenario's compensations: block with the
// registry's own parser, so that the block means, and is refused for,
// exactly what it would be in models.yaml. A problem is an *Error at the
// field it names.
func (t *tree) compensations(block map[string]any) error {
	doc := map[string]any{
		"adapters": map[string]any{"scenario": map[string]any{"type": "scenario"}},
		"models":   map[string]any{checkModel: map[string]any{"compensations": block}},
	}
	_, err := loadRegistry(t.file, doc)
	var re *adapters.RegistryError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &re):
		return t.errorf("/compensations", "compensations: %v", err)
	}
	field := strings.TrimPrefix(re.Field, "models."+checkModel+".")
	ptr := fieldPointer(field)
	pos := t.position(ptr)
	if strings.HasPrefix(re.Msg, "unknown field") {
		pos = t.keyPosition(ptr)
	}
	return &Error{Pos: pos, Msg: field + ": " + re.Msg}
}

var fieldIndex = regexp.MustCompile(`\[(\d+)\]`)

// fieldPointer turns a registry error's field ("compensations.retry.on",
// "compensations.core_tools[1]") into the JSON pointer of its value.
func fieldPointer(field string) string {
	field = fieldIndex.ReplaceAllString(field, ".$1")
	return "/" + strings.Join(strings.Split(field, "."), "/")
}

// compensationRegistry returns the registry compensate.Wrap reads for a
// run of model: reg's adapters and models, with their tiers and aliases
// (which tier_stand_in looks at), but with no compensations except
// block, on model.
func compensationRegistry(reg *adapters.Registry, model string, block map[string]any) (*adapters.Registry, error) {
	mc, err := reg.Resolve(model)
	if err != nil {
		return nil, err
	}
	ads := map[string]any{}
	for _, name := range reg.Adapters() {
		ads[name] = map[string]any{"type": name}
	}
	models := map[string]any{}
	for _, m := range reg.Models() {
		entry := map[string]any{"adapter": m.Adapter}
		if m.Tier != "" {
			entry["tier"] = m.Tier
		}
		if len(m.Aliases) > 0 {
			entry["aliases"] = m.Aliases
		}
		if m.ID == mc.ID {
			entry["compensations"] = block
		}
		models[m.ID] = entry
	}
	out, err := loadRegistry("compensations", map[string]any{"adapters": ads, "models": models})
	if err != nil {
		return nil, fmt.Errorf("compensations for %s: %w", model, err)
	}
	return out, nil
}

// loadRegistry parses doc, a models.yaml document as JSON values, with
// adapters.LoadRegistry; JSON is YAML, so every value keeps its type.
func loadRegistry(file string, doc map[string]any) (*adapters.Registry, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return adapters.LoadRegistry(bytes.NewReader(raw), file)
}

// standsIn reports whether a call for a model the registry puts on
// another adapter than the run's model goes to the run model's adapter
// instead: when the scenario's compensations turn tier_stand_in on, so
// that the stand-in (or the adapter's refusal) answers it.
func (r *run) standsIn(mc adapters.ModelConfig) bool {
	if on, _ := r.sc.Compensations["tier_stand_in"].(bool); !on {
		return false
	}
	own, err := r.reg.Resolve(r.model)
	return err == nil && own.Adapter != mc.Adapter
}

// compensate wraps a, one of the run's adapters, in package compensate
// when the scenario has a compensations: block, with the run's clock and
// logger; it returns a unchanged otherwise. r.mu is held.
func (r *run) compensate(a adapters.Adapter) (adapters.Adapter, error) {
	if r.sc.Compensations == nil {
		return a, nil
	}
	if r.compReg == nil {
		reg, err := compensationRegistry(r.reg, r.model, r.sc.Compensations)
		if err != nil {
			return nil, err
		}
		r.compReg = reg
	}
	return compensate.Wrap(a, r.compReg, compensate.Options{Clock: r.clock, Logger: r.logs.logger()}), nil
}
