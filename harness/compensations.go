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

// checkModel is the one model of the registry a compensations: block is
// parsed on, by the registry's own parser.
const checkModel = "scenario:model"

// parseCompensations parses a scenario's compensations: block exactly as
// the registry parses a model's in models.yaml (file names where it came
// from); a problem is an *adapters.RegistryError whose field starts with
// "models.scenario:model.".
func parseCompensations(file string, block map[string]any) (*adapters.Compensations, error) {
	doc := map[string]any{
		"adapters": map[string]any{"scenario": map[string]any{"type": "scenario"}},
		"models":   map[string]any{checkModel: map[string]any{"compensations": block}},
	}
	// JSON is YAML, so every value keeps its type.
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	reg, err := adapters.LoadRegistry(bytes.NewReader(raw), file)
	if err != nil {
		return nil, err
	}
	m, err := reg.Resolve(checkModel)
	if err != nil {
		return nil, err
	}
	return m.Compensations, nil
}

// compensations checks a scenario's compensations: block with
// parseCompensations, so that the block means, and is refused for,
// exactly what it would be in models.yaml. A problem is an *Error at the
// field it names.
func (t *tree) compensations(block map[string]any) error {
	_, err := parseCompensations(t.file, block)
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
// logger, over the run's registry in which only the run's model carries
// the block; it returns a unchanged otherwise. r.mu is held.
func (r *run) compensate(a adapters.Adapter) (adapters.Adapter, error) {
	if r.sc.Compensations == nil {
		return a, nil
	}
	if r.compReg == nil {
		c, err := parseCompensations(r.sc.File, r.sc.Compensations)
		if err != nil {
			return nil, err
		}
		if r.compReg, err = r.reg.WithCompensations(r.model, c); err != nil {
			return nil, fmt.Errorf("compensations for %s: %w", r.model, err)
		}
	}
	return compensate.Wrap(a, r.compReg, compensate.Options{Clock: r.clock, Logger: r.logs.logger()}), nil
}
