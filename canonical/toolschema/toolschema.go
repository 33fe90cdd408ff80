// Package toolschema derives a tool's input schema from a Go type, so
// that a tool's input is declared once, as the struct its function
// decodes, instead of as hand-written JSON Schema:
//
//	type WeatherInput struct {
//		City  string `json:"city" jsonschema:"the city, in English"`
//		Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit"`
//	}
//	schema, err := toolschema.For[WeatherInput]()
//
// The schema is inferred by github.com/google/jsonschema-go: a struct is
// an object with additionalProperties false, its properties the exported
// fields under their JSON names, required unless omitempty or omitzero;
// a field's jsonschema tag is its description; a pointer or a slice may
// also be null. It is then checked against the portable subset of 001
// §5.4 (canonical.CheckToolSchema), the one every provider accepts, so a
// type the subset cannot express — a map (additionalProperties other
// than false), an interface (no type), a nested struct without fields —
// is refused here, at registration, with the path of each violation,
// never by a provider mid-conversation.
//
// The ranges jsonschema-go derives from Go integer types (uint8 is 0 to
// 255) and from array lengths are left out, as the subset requires:
// decoding the input into the type still enforces them.
package toolschema

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metis-llm/metis/canonical"
)

// For returns the input schema of T, which must be a struct (or a pointer
// to one): see the package doc. The error names T and, when the schema
// is outside the subset, wraps the canonical invalid_tool_schema
// AdapterError listing every violation.
func For[T any]() (json.RawMessage, error) {
	return ForType(reflect.TypeFor[T]())
}

// ForType is For for a reflect.Type.
func ForType(t reflect.Type) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %s: %w", t, err)
	}
	dropRanges(s)
	if len(s.Types) == 2 && s.Types[0] == "null" {
		// A pointer to the input struct: the input itself is never null.
		s.Type, s.Types = s.Types[1], nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %s: %w", t, err)
	}
	if err := canonical.CheckToolSchema(raw); err != nil {
		return nil, fmt.Errorf("toolschema: %s: the schema is outside the portable subset: %w", t, err)
	}
	return raw, nil
}

// dropRanges removes the bounds jsonschema-go derives from Go types,
// which the subset leaves out, from s and every schema under it.
func dropRanges(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.Minimum, s.Maximum, s.MinItems, s.MaxItems = nil, nil, nil, nil
	for _, p := range s.Properties {
		dropRanges(p)
	}
	dropRanges(s.Items)
	dropRanges(s.AdditionalProperties)
}
