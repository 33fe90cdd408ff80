// Package schemacheck compiles embedded JSON Schemas (draft 2020-12)
// and validates JSON documents against them, reporting the most specific
// violation with its JSON pointer — what the stdio protocol and the
// certification bundle need from santhosh-tekuri/jsonschema.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Resource is one schema document and the URL it is known by; other
// resources refer to it by that URL.
type Resource struct {
	URL  string
	Data []byte
}

// Compile adds every resource and compiles the first.
func Compile(resources ...Resource) (*Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	for _, r := range resources {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Data))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", r.URL, err)
		}
		if err := c.AddResource(r.URL, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", r.URL, err)
		}
	}
	s, err := c.Compile(resources[0].URL)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", resources[0].URL, err)
	}
	return &Schema{s: s}, nil
}

// Schema is a compiled schema.
type Schema struct{ s *jsonschema.Schema }

// ValidateJSON checks one JSON document. The error names the most
// specific violation: "/event/type: value must be one of ...".
func (s *Schema) ValidateJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("not one JSON value: data follows it")
	}
	return s.Validate(doc)
}

// Validate checks a decoded document (numbers as json.Number).
func (s *Schema) Validate(doc any) error {
	err := s.s.Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	return fmt.Errorf("%s", deepest(ve))
}

var printer = message.NewPrinter(language.English)

// deepest renders the violation deepest in the document.
func deepest(ve *jsonschema.ValidationError) string {
	best, bestDepth := ve, -1
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if d := len(e.InstanceLocation); d > bestDepth {
				best, bestDepth = e, d
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	ptr := "/" + strings.Join(best.InstanceLocation, "/")
	return ptr + ": " + best.ErrorKind.LocalizedString(printer)
}
