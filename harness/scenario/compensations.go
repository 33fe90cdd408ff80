package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/metis-llm/metis/adapters"
)

// checkModel is the one model of the registry a compensations: block is
// parsed on, by the registry's own parser.
const checkModel = "scenario:model"

// ParseCompensations parses a scenario's compensations: block exactly as
// the registry parses a model's in models.yaml (file names where it came
// from); a problem is an *adapters.RegistryError whose field starts with
// "models.scenario:model.".
func ParseCompensations(file string, block map[string]any) (*adapters.Compensations, error) {
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
// ParseCompensations, so that the block means, and is refused for,
// exactly what it would be in models.yaml. A problem is an *Error at the
// field it names.
func (t *tree) compensations(block map[string]any) error {
	_, err := ParseCompensations(t.file, block)
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
