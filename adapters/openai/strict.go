package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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

// DropStrictNulls returns a strict tool call's input without the nulls
// strict mode makes the model send for the optional parameters it leaves
// out (003 §10.1.1): StrictSchema made every optional property required
// and nullable, so a null is the model's way of omitting it. schema is
// the tool's declared (canonical) input schema; a member is dropped when
// its value is null, its object's schema does not list it in "required",
// and its declared schema does not admit null (a property that already
// admits null, or constrains no type, keeps its null, as StrictSchema
// left it unchanged). The rule applies wherever StrictSchema's does in
// the input: through "properties", "items" (a schema or a tuple),
// local "$ref"s to "$defs" or "definitions", and an "anyOf" with one
// branch besides {"type":"null"}. Member order and number literals are
// kept. It returns input itself and false when nothing is dropped, or
// when input or schema is not valid JSON.
func DropStrictNulls(schema, input json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(input, []byte("null")) {
		return input, false
	}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil || root == nil {
		return input, false
	}
	v, err := driver.DecodeOrderedJSON(input)
	if err != nil {
		return input, false
	}
	w := nullWalker{root: root}
	out, dropped := w.value(root, v, 0)
	if !dropped {
		return input, false
	}
	b, err := json.Marshal(out)
	if err != nil {
		return input, false
	}
	return b, true
}

// nullWalker walks an input alongside its declared schema.
type nullWalker struct{ root map[string]any }

// maxRefHops bounds the $ref chain followed for one value, so that a
// schema referring to itself ends.
const maxRefHops = 32

// resolve follows s's local $ref (and an anyOf with one non-null branch)
// to the schema that constrains a value; nil when it cannot tell.
func (w nullWalker) resolve(s map[string]any) map[string]any {
	for range maxRefHops {
		if ref, ok := s["$ref"].(string); ok {
			s = w.ref(ref)
			if s == nil {
				return nil
			}
			continue
		}
		if b := soleBranch(s); b != nil {
			s = b
			continue
		}
		return s
	}
	return nil
}

// ref returns the schema a local reference "#/$defs/x" or
// "#/definitions/x" names, or nil.
func (w nullWalker) ref(ref string) map[string]any {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := w.root[strings.TrimSuffix(prefix[2:], "/")].(map[string]any)
			d, _ := defs[name].(map[string]any)
			return d
		}
	}
	return nil
}

// soleBranch returns the one branch of s's anyOf that is not
// {"type":"null"}, or nil when there is no anyOf or more than one.
func soleBranch(s map[string]any) map[string]any {
	anyOf, ok := s["anyOf"].([]any)
	if !ok {
		return nil
	}
	var sole map[string]any
	for _, b := range anyOf {
		m, ok := b.(map[string]any)
		if !ok {
			return nil
		}
		if m["type"] == "null" {
			continue
		}
		if sole != nil {
			return nil
		}
		sole = m
	}
	return sole
}

// value returns v with the strict nulls under it dropped, and whether
// any was.
func (w nullWalker) value(s map[string]any, v any, depth int) (any, bool) {
	if depth > driver.MaxJSONDepth {
		return v, false
	}
	if s = w.resolve(s); s == nil {
		return v, false
	}
	switch v := v.(type) {
	case *driver.JSONObject:
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			return v, false
		}
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		out := &driver.JSONObject{}
		dropped := false
		for key, val := range v.All() {
			ps, _ := props[key].(map[string]any)
			if ps == nil {
				out.Set(key, val)
				continue
			}
			if val == nil && !required[key] && !w.admitsNull(ps, 0) {
				dropped = true
				continue
			}
			nv, d := w.value(ps, val, depth+1)
			dropped = dropped || d
			out.Set(key, nv)
		}
		if !dropped {
			return v, false
		}
		return out, true
	case []any:
		var each func(i int) map[string]any
		switch items := s["items"].(type) {
		case map[string]any:
			each = func(int) map[string]any { return items }
		case []any:
			each = func(i int) map[string]any {
				if i < len(items) {
					m, _ := items[i].(map[string]any)
					return m
				}
				return nil
			}
		default:
			return v, false
		}
		var out []any
		for i, el := range v {
			is := each(i)
			if is == nil {
				continue
			}
			if nv, d := w.value(is, el, depth+1); d {
				if out == nil {
					out = slices.Clone(v)
				}
				out[i] = nv
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// admitsNull reports whether the declared schema s accepts null: its
// type is or includes "null", its enum lists null, its const is null, a
// branch of its anyOf or oneOf admits null, or it constrains none of
// these (an unconstrained schema, or one this walk cannot read).
func (w nullWalker) admitsNull(s map[string]any, hops int) bool {
	if hops > maxRefHops {
		return true
	}
	if ref, ok := s["$ref"].(string); ok {
		d := w.ref(ref)
		return d == nil || w.admitsNull(d, hops+1)
	}
	constrained := false
	switch t := s["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	if enum, ok := s["enum"].([]any); ok {
		return slices.Contains(enum, nil)
	}
	if c, ok := s["const"]; ok {
		return c == nil
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := s[key].([]any)
		if !ok {
			continue
		}
		constrained = true
		for _, b := range branches {
			if m, ok := b.(map[string]any); ok && w.admitsNull(m, hops+1) {
				return true
			}
		}
	}
	return !constrained
}
