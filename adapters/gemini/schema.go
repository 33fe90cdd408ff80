package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
)

// schema is Gemini's Schema object: a subset of the OpenAPI 3.0 schema.
// Field order here is the order of the wire JSON.
type schema struct {
	Type             string      `json:"type,omitempty"`
	Format           string      `json:"format,omitempty"`
	Title            string      `json:"title,omitempty"`
	Description      string      `json:"description,omitempty"`
	Nullable         bool        `json:"nullable,omitempty"`
	Enum             []string    `json:"enum,omitempty"`
	Properties       *properties `json:"properties,omitempty"`
	PropertyOrdering []string    `json:"propertyOrdering,omitempty"`
	Required         []string    `json:"required,omitempty"`
	Items            *schema     `json:"items,omitempty"`
	AnyOf            []*schema   `json:"anyOf,omitempty"`
	Minimum          json.Number `json:"minimum,omitempty"`
	Maximum          json.Number `json:"maximum,omitempty"`
	MinItems         json.Number `json:"minItems,omitempty"`
	MaxItems         json.Number `json:"maxItems,omitempty"`
	MinLength        json.Number `json:"minLength,omitempty"`
	MaxLength        json.Number `json:"maxLength,omitempty"`
	MinProperties    json.Number `json:"minProperties,omitempty"`
	MaxProperties    json.Number `json:"maxProperties,omitempty"`
	Pattern          string      `json:"pattern,omitempty"`
	Default          any         `json:"default,omitempty"`
	Example          any         `json:"example,omitempty"`
}

// properties is an object's properties in their declared order.
type properties struct {
	names  []string
	byName map[string]*schema
}

func (p *properties) set(name string, s *schema) {
	if p.byName == nil {
		p.byName = map[string]*schema{}
	}
	if _, ok := p.byName[name]; !ok {
		p.names = append(p.names, name)
	}
	p.byName[name] = s
}

// MarshalJSON writes the properties in declaration order.
func (p *properties) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, n := range p.names {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.byName[n])
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// maxSchemaDepth bounds schema nesting, so hostile input cannot exhaust
// the stack.
const maxSchemaDepth = 64

// convertSchema turns a JSON Schema into Gemini's Schema. The rules:
//
//   - type names become Gemini's upper-case ones (STRING, NUMBER, INTEGER,
//     BOOLEAN, ARRAY, OBJECT); a type array with "null" becomes the other
//     type plus nullable: true (["string","null"] → STRING, nullable), and
//     several non-null types become anyOf.
//   - anyOf and oneOf become anyOf (Gemini has no exclusive union); a
//     {"type":"null"} branch becomes nullable, and a single remaining
//     branch is inlined. allOf branches are merged into one schema.
//   - const becomes a one-value enum; enum values become strings (Gemini
//     takes string enums only) and a null value becomes nullable.
//   - local $ref ("#/$defs/X", "#/definitions/X") is inlined; a recursive
//     reference becomes a bare OBJECT, since Gemini has no references.
//   - properties keep their order; with ordering set, propertyOrdering
//     lists them so structured output follows the declared order (Gemini
//     otherwise orders keys itself). required names only declared
//     properties.
//   - items (the first, for a tuple), description, title, pattern,
//     minimum, maximum, min/maxItems, min/maxLength, min/maxProperties,
//     default and example (or the first of examples) are kept; format only
//     where Gemini accepts it (enum and date-time on strings, float and
//     double on numbers, int32 and int64 on integers).
//   - everything else is dropped: additionalProperties, $schema, $id,
//     $comment, $defs, patternProperties, not, if/then/else, multipleOf,
//     exclusiveMinimum/Maximum, uniqueItems, readOnly, and the rest.
func convertSchema(raw json.RawMessage, ordering bool) (*schema, error) {
	root, err := driver.DecodeOrderedJSON(raw)
	if err != nil {
		return nil, err
	}
	c := &converter{ordering: ordering}
	if obj, ok := root.(*driver.JSONObject); ok {
		c.root = obj
	}
	return c.convert(root, 0)
}

type converter struct {
	root     *driver.JSONObject
	ordering bool
	refs     []string // references being expanded, to stop recursion
}

// typeNames maps JSON Schema type names to Gemini's.
var typeNames = map[string]string{
	"string": "STRING", "number": "NUMBER", "integer": "INTEGER",
	"boolean": "BOOLEAN", "array": "ARRAY", "object": "OBJECT",
}

// formats lists the formats Gemini accepts, by Gemini type.
var formats = map[string][]string{
	"STRING":  {"enum", "date-time"},
	"NUMBER":  {"float", "double"},
	"INTEGER": {"int32", "int64"},
}

func (c *converter) convert(node any, depth int) (*schema, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("schema nested deeper than %d levels", maxSchemaDepth)
	}
	var obj *driver.JSONObject
	switch n := node.(type) {
	case bool:
		if !n {
			return nil, errors.New("the false schema (nothing allowed) has no Gemini equivalent")
		}
		return &schema{}, nil
	case *driver.JSONObject:
		obj = n
	default:
		return nil, fmt.Errorf("a schema must be a JSON object, got %s", driver.JSONKind(node))
	}

	s := &schema{}
	var format string
	for key, v := range obj.All() {
		var err error
		switch key {
		case "type":
			err = c.setType(s, v)
		case "nullable":
			if b, ok := v.(bool); ok && b {
				s.Nullable = true
			}
		case "title":
			s.Title, _ = v.(string)
		case "description":
			s.Description, _ = v.(string)
		case "format":
			format, _ = v.(string)
		case "pattern":
			s.Pattern, _ = v.(string)
		case "enum":
			if list, ok := v.([]any); ok {
				c.setEnum(s, list)
			}
		case "const":
			c.setEnum(s, []any{v})
		case "properties":
			err = c.setProperties(s, v, depth)
		case "items":
			err = c.setItems(s, v, depth)
		case "anyOf", "oneOf":
			err = c.setAnyOf(s, v, depth)
		case "allOf":
			err = c.mergeAll(s, v, depth)
		case "$ref":
			err = c.mergeRef(s, v, depth)
		case "minimum":
			s.Minimum = number(v)
		case "maximum":
			s.Maximum = number(v)
		case "minItems":
			s.MinItems = number(v)
		case "maxItems":
			s.MaxItems = number(v)
		case "minLength":
			s.MinLength = number(v)
		case "maxLength":
			s.MaxLength = number(v)
		case "minProperties":
			s.MinProperties = number(v)
		case "maxProperties":
			s.MaxProperties = number(v)
		case "default":
			s.Default = v
		case "example":
			s.Example = v
		case "examples":
			if list, ok := v.([]any); ok && len(list) > 0 && s.Example == nil {
				s.Example = list[0]
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if format != "" && slices.Contains(formats[s.Type], format) {
		s.Format = format
	}
	if list, ok := obj.Get("required").([]any); ok {
		var own []string
		for _, r := range list {
			if name, ok := r.(string); ok {
				own = append(own, name)
			}
		}
		s.Required = append(own, s.Required...)
	}
	var required []string // declared properties only, each once
	for _, name := range s.Required {
		if s.Properties != nil && s.Properties.byName[name] != nil && !slices.Contains(required, name) {
			required = append(required, name)
		}
	}
	s.Required = required
	return s, nil
}

func (c *converter) setType(s *schema, v any) error {
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, e := range t {
			if n, ok := e.(string); ok {
				names = append(names, n)
			}
		}
	default:
		return fmt.Errorf("must be a string or a list of strings, got %s", driver.JSONKind(v))
	}
	var types []string
	for _, n := range names {
		if n == "null" {
			s.Nullable = true
			continue
		}
		g, ok := typeNames[n]
		if !ok {
			return fmt.Errorf("unknown type %q", n)
		}
		if !slices.Contains(types, g) {
			types = append(types, g)
		}
	}
	switch len(types) {
	case 0:
	case 1:
		s.Type = types[0]
	default:
		for _, t := range types {
			s.AnyOf = append(s.AnyOf, &schema{Type: t})
		}
	}
	return nil
}

func (c *converter) setEnum(s *schema, list []any) {
	for _, e := range list {
		switch e := e.(type) {
		case nil:
			s.Nullable = true
		case string:
			s.Enum = append(s.Enum, e)
		case json.Number:
			s.Enum = append(s.Enum, e.String())
		case bool:
			s.Enum = append(s.Enum, fmt.Sprint(e))
		}
	}
}

func (c *converter) setProperties(s *schema, v any, depth int) error {
	obj, ok := v.(*driver.JSONObject)
	if !ok {
		return fmt.Errorf("must be an object, got %s", driver.JSONKind(v))
	}
	props := s.Properties // may hold properties merged from allOf or $ref
	if props == nil {
		props = &properties{}
	}
	for name, prop := range obj.All() {
		p, err := c.convert(prop, depth+1)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		props.set(name, p)
	}
	s.Properties = props
	if c.ordering && len(props.names) > 1 {
		s.PropertyOrdering = append([]string(nil), props.names...)
	}
	return nil
}

func (c *converter) setItems(s *schema, v any, depth int) error {
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return nil
		}
		v = list[0]
	}
	items, err := c.convert(v, depth+1)
	if err != nil {
		return err
	}
	s.Items = items
	return nil
}

func (c *converter) setAnyOf(s *schema, v any, depth int) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("must be a list, got %s", driver.JSONKind(v))
	}
	var branches []*schema
	for i, e := range list {
		b, err := c.convert(e, depth+1)
		if err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		if b.isNull() {
			s.Nullable = true
			continue
		}
		if b.Nullable {
			s.Nullable = true
			b.Nullable = false
		}
		branches = append(branches, b)
	}
	if len(branches) == 1 && len(s.AnyOf) == 0 {
		merge(s, branches[0])
		return nil
	}
	s.AnyOf = append(s.AnyOf, branches...)
	return nil
}

func (c *converter) mergeAll(s *schema, v any, depth int) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("must be a list, got %s", driver.JSONKind(v))
	}
	for i, e := range list {
		b, err := c.convert(e, depth+1)
		if err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		merge(s, b)
	}
	return nil
}

func (c *converter) mergeRef(s *schema, v any, depth int) error {
	ref, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a string, got %s", driver.JSONKind(v))
	}
	if slices.Contains(c.refs, ref) {
		merge(s, &schema{Type: "OBJECT"}) // recursive: Gemini has no references
		return nil
	}
	target, err := c.resolve(ref)
	if err != nil {
		return err
	}
	c.refs = append(c.refs, ref)
	b, err := c.convert(target, depth+1)
	c.refs = c.refs[:len(c.refs)-1]
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	merge(s, b)
	return nil
}

// resolve finds a local reference "#/$defs/Name" or "#/definitions/Name"
// (JSON Pointer escapes ~0 and ~1 honoured).
func (c *converter) resolve(ref string) (any, error) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok || c.root == nil {
		return nil, fmt.Errorf("only local references are supported, got %q", ref)
	}
	var node any = c.root
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		obj, ok := node.(*driver.JSONObject)
		if !ok || !obj.Has(tok) {
			return nil, fmt.Errorf("reference %q not found", ref)
		}
		node = obj.Get(tok)
	}
	return node, nil
}

// isNull reports whether s is {"type":"null"} (converted: only nullable).
func (s *schema) isNull() bool {
	return s.Nullable && s.Type == "" && s.Properties == nil && s.Items == nil && len(s.AnyOf) == 0 && len(s.Enum) == 0
}

// merge fills dst's unset fields from src; properties and required are
// united.
func merge(dst, src *schema) {
	if dst.Type == "" {
		dst.Type = src.Type
	}
	if dst.Format == "" {
		dst.Format = src.Format
	}
	if dst.Title == "" {
		dst.Title = src.Title
	}
	if dst.Description == "" {
		dst.Description = src.Description
	}
	dst.Nullable = dst.Nullable || src.Nullable
	if dst.Enum == nil {
		dst.Enum = src.Enum
	}
	if src.Properties != nil {
		if dst.Properties == nil {
			dst.Properties = &properties{}
		}
		for _, n := range src.Properties.names {
			if dst.Properties.byName[n] == nil {
				dst.Properties.set(n, src.Properties.byName[n])
			}
		}
		if dst.PropertyOrdering != nil || src.PropertyOrdering != nil {
			dst.PropertyOrdering = append([]string(nil), dst.Properties.names...)
		}
	}
	for _, r := range src.Required {
		if !slices.Contains(dst.Required, r) {
			dst.Required = append(dst.Required, r)
		}
	}
	if dst.Items == nil {
		dst.Items = src.Items
	}
	if dst.AnyOf == nil {
		dst.AnyOf = src.AnyOf
	}
	for _, f := range []struct{ d, s *json.Number }{
		{&dst.Minimum, &src.Minimum}, {&dst.Maximum, &src.Maximum},
		{&dst.MinItems, &src.MinItems}, {&dst.MaxItems, &src.MaxItems},
		{&dst.MinLength, &src.MinLength}, {&dst.MaxLength, &src.MaxLength},
		{&dst.MinProperties, &src.MinProperties}, {&dst.MaxProperties, &src.MaxProperties},
	} {
		if *f.d == "" {
			*f.d = *f.s
		}
	}
	if dst.Pattern == "" {
		dst.Pattern = src.Pattern
	}
	if dst.Default == nil {
		dst.Default = src.Default
	}
	if dst.Example == nil {
		dst.Example = src.Example
	}
}

// number returns v as a json.Number, or "" when it is not a number.
func number(v any) json.Number {
	n, _ := v.(json.Number)
	return n
}
