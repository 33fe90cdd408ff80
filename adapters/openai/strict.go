package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/metis-llm/metis/adapters/driver"
)

// StrictSchema rewrites a JSON Schema into the form OpenAI's strict mode
// accepts (seed 003 §5.2), for function parameters with "strict": true and
// for json_schema response formats:
//
//   - every object gets "additionalProperties": false and lists all of its
//     properties, in their original order, in "required";
//   - a property that was optional becomes nullable instead: a "type"
//     string becomes [type, "null"], a type array gains "null", an "enum"
//     gains null, an "anyOf" gains {"type":"null"} and a bare "$ref" is
//     wrapped in an anyOf with {"type":"null"}; a schema that already
//     admits null, or has no type at all, stays as it is;
//   - the rules apply recursively through "properties", "items" (a schema
//     or a tuple of schemas), "anyOf", "$defs" and "definitions".
//
// Key order and number literals are kept. An empty schema becomes the
// empty strict object. It returns an error naming the JSON path when the
// schema is not valid JSON, its root is not an object schema, or an object
// allows additional properties through a schema or true, which strict
// mode cannot express.
func StrictSchema(schema json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`), nil
	}
	v, err := driver.DecodeOrderedJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("strict schema: %w", err)
	}
	root, ok := v.(*driver.JSONObject)
	if !ok || !isObjectSchema(root) {
		return nil, fmt.Errorf("strict schema: root must be an object schema")
	}
	if err := strictify(root, "$"); err != nil {
		return nil, err
	}
	out, err := root.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("strict schema: %w", err)
	}
	return out, nil
}

// strictify applies the strict rules to the schema node s in place. path
// is its JSON path, for errors.
func strictify(s *driver.JSONObject, path string) error {
	if defs, ok := s.Get("$defs").(*driver.JSONObject); ok {
		if err := strictifyEach(defs, path+".$defs"); err != nil {
			return err
		}
	}
	if defs, ok := s.Get("definitions").(*driver.JSONObject); ok {
		if err := strictifyEach(defs, path+".definitions"); err != nil {
			return err
		}
	}
	if anyOf, ok := s.Get("anyOf").([]any); ok {
		for i, branch := range anyOf {
			if b, ok := branch.(*driver.JSONObject); ok {
				if err := strictify(b, fmt.Sprintf("%s.anyOf[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	switch items := s.Get("items").(type) {
	case *driver.JSONObject:
		if err := strictify(items, path+".items"); err != nil {
			return err
		}
	case []any:
		for i, it := range items {
			if o, ok := it.(*driver.JSONObject); ok {
				if err := strictify(o, fmt.Sprintf("%s.items[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	if !isObjectSchema(s) {
		return nil
	}
	switch ap := s.Get("additionalProperties").(type) {
	case nil, bool:
		if ap == true {
			return fmt.Errorf("strict schema: %s allows additional properties, which strict mode cannot express", path)
		}
	default:
		return fmt.Errorf("strict schema: %s has an additionalProperties schema, which strict mode cannot express", path)
	}
	if !s.Has("type") {
		s.Set("type", "object")
	}
	props, _ := s.Get("properties").(*driver.JSONObject)
	if props == nil {
		props = &driver.JSONObject{}
		s.Set("properties", props)
	}
	required := map[string]bool{}
	if req, ok := s.Get("required").([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]any, 0, props.Len())
	for key, v := range props.All() {
		names = append(names, key)
		p, ok := v.(*driver.JSONObject)
		if !ok {
			continue // a boolean schema; nothing to rewrite
		}
		if err := strictify(p, path+".properties."+key); err != nil {
			return err
		}
		if !required[key] {
			props.Set(key, nullable(p))
		}
	}
	s.Set("required", names)
	s.Set("additionalProperties", false)
	return nil
}

func strictifyEach(defs *driver.JSONObject, path string) error {
	for key, v := range defs.All() {
		if d, ok := v.(*driver.JSONObject); ok {
			if err := strictify(d, path+"."+key); err != nil {
				return err
			}
		}
	}
	return nil
}

// nullable returns s widened to admit null, leaving schemas that already
// admit it (or constrain no type) unchanged.
func nullable(s *driver.JSONObject) any {
	switch t := s.Get("type").(type) {
	case string:
		if t == "null" {
			return s
		}
		s.Set("type", []any{t, "null"})
		addNullToEnum(s)
		return s
	case []any:
		for _, x := range t {
			if x == "null" {
				return s
			}
		}
		s.Set("type", append(t, "null"))
		addNullToEnum(s)
		return s
	}
	if anyOf, ok := s.Get("anyOf").([]any); ok {
		for _, b := range anyOf {
			if o, ok := b.(*driver.JSONObject); ok && o.Get("type") == "null" {
				return s
			}
		}
		s.Set("anyOf", append(anyOf, nullSchema()))
		return s
	}
	if s.Has("$ref") {
		w := &driver.JSONObject{}
		w.Set("anyOf", []any{s, nullSchema()})
		return w
	}
	return s
}

// nullSchema returns {"type":"null"}.
func nullSchema() *driver.JSONObject {
	o := &driver.JSONObject{}
	o.Set("type", "null")
	return o
}

func addNullToEnum(s *driver.JSONObject) {
	enum, ok := s.Get("enum").([]any)
	if !ok {
		return
	}
	for _, e := range enum {
		if e == nil {
			return
		}
	}
	s.Set("enum", append(enum, nil))
}

// isObjectSchema reports whether s describes an object: its type is (or
// includes) "object", or it has properties and no type.
func isObjectSchema(s *driver.JSONObject) bool {
	switch t := s.Get("type").(type) {
	case string:
		return t == "object"
	case []any:
		for _, x := range t {
			if x == "object" {
				return true
			}
		}
		return false
	case nil:
		return s.Has("properties")
	}
	return false
}
