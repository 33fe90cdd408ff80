package equiv

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// Holds reports whether body is equivalent under f to body with the
// value at the JSON pointer ptr (RFC 6901; a negative array index counts
// from the end) set to want: whether a request expectation "ptr is want"
// holds of body up to wire forms the API treats alike. The system prompt
// sent as one text block holds for an expected string, an absent
// is_error for an expected false. Every field is compared, the output
// limit too. A pointer whose parent is not in body, or a body or want
// that is not JSON, does not hold.
func Holds(f Format, body []byte, ptr string, want []byte) bool {
	w, err := decode(want)
	if err != nil {
		return false
	}
	return holds(f, body, ptr, func(parent any, key string) (any, bool) { return set(parent, key, w) })
}

// HoldsAbsent reports whether body is equivalent under f to body without
// the value at ptr: whether an expectation "ptr is absent" holds up to
// wire forms (an explicit default, such as "stream": false or
// tool_choice auto, is as good as absent).
func HoldsAbsent(f Format, body []byte, ptr string) bool {
	return holds(f, body, ptr, remove)
}

func holds(f Format, body []byte, ptr string, edit func(parent any, key string) (any, bool)) bool {
	doc, err := decode(body)
	if err != nil {
		return false
	}
	tokens, ok := splitPointer(ptr)
	if !ok || len(tokens) == 0 {
		return false
	}
	edited, ok := editAt(doc, tokens, edit)
	if !ok {
		return false
	}
	data, err := json.Marshal(edited)
	if err != nil {
		return false
	}
	o := Options{LimitSet: true}
	a, err1 := Normalize(f, body, o)
	b, err2 := Normalize(f, data, o)
	return err1 == nil && err2 == nil && reflect.DeepEqual(a, b)
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func splitPointer(ptr string) ([]string, bool) {
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, true
}

// editAt applies edit to the parent of the last token, returning the
// document (a copy along the path).
func editAt(doc any, tokens []string, edit func(parent any, key string) (any, bool)) (any, bool) {
	if len(tokens) == 1 {
		return edit(doc, tokens[0])
	}
	switch v := doc.(type) {
	case map[string]any:
		child, ok := v[tokens[0]]
		if !ok {
			return nil, false
		}
		nc, ok := editAt(child, tokens[1:], edit)
		if !ok {
			return nil, false
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = e
		}
		out[tokens[0]] = nc
		return out, true
	case []any:
		i, ok := index(v, tokens[0])
		if !ok {
			return nil, false
		}
		nc, ok := editAt(v[i], tokens[1:], edit)
		if !ok {
			return nil, false
		}
		out := append([]any(nil), v...)
		out[i] = nc
		return out, true
	}
	return nil, false
}

func index(a []any, tok string) (int, bool) {
	i, err := strconv.Atoi(tok)
	if err != nil {
		return 0, false
	}
	if i < 0 {
		i += len(a)
	}
	return i, i >= 0 && i < len(a)
}

func set(parent any, key string, val any) (any, bool) {
	switch v := parent.(type) {
	case map[string]any:
		out := make(map[string]any, len(v)+1)
		for k, e := range v {
			out[k] = e
		}
		out[key] = val
		return out, true
	case []any:
		i, ok := index(v, key)
		if !ok {
			return nil, false
		}
		out := append([]any(nil), v...)
		out[i] = val
		return out, true
	}
	return nil, false
}

func remove(parent any, key string) (any, bool) {
	switch v := parent.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if k != key {
				out[k] = e
			}
		}
		return out, true
	case []any:
		i, ok := index(v, key)
		if !ok {
			return nil, false
		}
		return append(append([]any(nil), v[:i]...), v[i+1:]...), true
	}
	return nil, false
}
