package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	v, err := decodeOrdered(schema)
	if err != nil {
		return nil, fmt.Errorf("strict schema: %w", err)
	}
	root, ok := v.(*object)
	if !ok || !isObjectSchema(root) {
		return nil, fmt.Errorf("strict schema: root must be an object schema")
	}
	if err := strictify(root, "$"); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, root); err != nil {
		return nil, fmt.Errorf("strict schema: %w", err)
	}
	return buf.Bytes(), nil
}

// strictify applies the strict rules to the schema node s in place. path
// is its JSON path, for errors.
func strictify(s *object, path string) error {
	if defs, ok := s.get("$defs").(*object); ok {
		if err := strictifyEach(defs, path+".$defs"); err != nil {
			return err
		}
	}
	if defs, ok := s.get("definitions").(*object); ok {
		if err := strictifyEach(defs, path+".definitions"); err != nil {
			return err
		}
	}
	if anyOf, ok := s.get("anyOf").([]any); ok {
		for i, branch := range anyOf {
			if b, ok := branch.(*object); ok {
				if err := strictify(b, fmt.Sprintf("%s.anyOf[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	switch items := s.get("items").(type) {
	case *object:
		if err := strictify(items, path+".items"); err != nil {
			return err
		}
	case []any:
		for i, it := range items {
			if o, ok := it.(*object); ok {
				if err := strictify(o, fmt.Sprintf("%s.items[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	if !isObjectSchema(s) {
		return nil
	}
	switch ap := s.get("additionalProperties").(type) {
	case nil, bool:
		if ap == true {
			return fmt.Errorf("strict schema: %s allows additional properties, which strict mode cannot express", path)
		}
	default:
		return fmt.Errorf("strict schema: %s has an additionalProperties schema, which strict mode cannot express", path)
	}
	if !s.has("type") {
		s.set("type", "object")
	}
	props, _ := s.get("properties").(*object)
	if props == nil {
		props = &object{}
		s.set("properties", props)
	}
	required := map[string]bool{}
	if req, ok := s.get("required").([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]any, 0, len(props.members))
	for i := range props.members {
		m := &props.members[i]
		names = append(names, m.key)
		p, ok := m.value.(*object)
		if !ok {
			continue // a boolean schema; nothing to rewrite
		}
		if err := strictify(p, path+".properties."+m.key); err != nil {
			return err
		}
		if !required[m.key] {
			m.value = nullable(p)
		}
	}
	s.set("required", names)
	s.set("additionalProperties", false)
	return nil
}

func strictifyEach(defs *object, path string) error {
	for _, m := range defs.members {
		if d, ok := m.value.(*object); ok {
			if err := strictify(d, path+"."+m.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// nullable returns s widened to admit null, leaving schemas that already
// admit it (or constrain no type) unchanged.
func nullable(s *object) any {
	switch t := s.get("type").(type) {
	case string:
		if t == "null" {
			return s
		}
		s.set("type", []any{t, "null"})
		addNullToEnum(s)
		return s
	case []any:
		for _, x := range t {
			if x == "null" {
				return s
			}
		}
		s.set("type", append(t, "null"))
		addNullToEnum(s)
		return s
	}
	if anyOf, ok := s.get("anyOf").([]any); ok {
		for _, b := range anyOf {
			if o, ok := b.(*object); ok && o.get("type") == "null" {
				return s
			}
		}
		s.set("anyOf", append(anyOf, &object{members: []member{{"type", "null"}}}))
		return s
	}
	if s.has("$ref") {
		return &object{members: []member{{"anyOf", []any{s, &object{members: []member{{"type", "null"}}}}}}}
	}
	return s
}

func addNullToEnum(s *object) {
	enum, ok := s.get("enum").([]any)
	if !ok {
		return
	}
	for _, e := range enum {
		if e == nil {
			return
		}
	}
	s.set("enum", append(enum, nil))
}

// isObjectSchema reports whether s describes an object: its type is (or
// includes) "object", or it has properties and no type.
func isObjectSchema(s *object) bool {
	switch t := s.get("type").(type) {
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
		return s.has("properties")
	}
	return false
}

// object is a JSON object that keeps its key order, so that a rewritten
// schema lists properties in the order the caller wrote them (the order
// the model generates them in).
type object struct {
	members []member
}

type member struct {
	key   string
	value any
}

func (o *object) get(key string) any {
	for _, m := range o.members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

func (o *object) has(key string) bool {
	for _, m := range o.members {
		if m.key == key {
			return true
		}
	}
	return false
}

func (o *object) set(key string, v any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].value = v
			return
		}
	}
	o.members = append(o.members, member{key, v})
}

// decodeOrdered parses one JSON value into *object, []any, string,
// json.Number, bool or nil.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return v, nil
}

const maxSchemaDepth = 256

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxSchemaDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.set(key, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

func encodeOrdered(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *object:
		buf.WriteByte('{')
		for i, m := range t.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, err := json.Marshal(m.key)
			if err != nil {
				return err
			}
			buf.Write(k)
			buf.WriteByte(':')
			if err := encodeOrdered(buf, m.value); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeOrdered(buf, x); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}
