package equiv

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// Holds reports whether some request equivalent to body under f has
// want at the JSON pointer ptr (RFC 6901; a negative array index counts
// from the end): whether a request expectation "ptr is want" holds of
// body up to wire forms the API treats alike. The system prompt sent as
// one text block holds for an expected string, an absent is_error for an
// expected false. Where the equivalence does not count the order of a
// list's elements (results that name their calls by id), ptr may name
// any of them: an expected tool result at /messages/2/content/0 holds of
// a body that sends it second. Every field is compared, the output limit
// too. A pointer whose parent is not in body, or a body or want that is
// not JSON, does not hold.
func Holds(f Format, body []byte, ptr string, want []byte) bool {
	w, err := decode(want)
	if err != nil {
		return false
	}
	return holds(f, body, ptr, true, func(parent any, key string) (any, bool) { return set(parent, key, w) })
}

// HoldsAbsent reports whether body is equivalent under f to body without
// the value at ptr: whether an expectation "ptr is absent" holds up to
// wire forms (an explicit default, such as "stream": false or
// tool_choice auto, is as good as absent).
func HoldsAbsent(f Format, body []byte, ptr string) bool {
	return holds(f, body, ptr, false, remove)
}

// holds reports whether the edit at ptr of body, or, with reorder, of
// body with the element ptr names in one of the arrays on its way
// swapped with another of that array, is equivalent to body. A swapped
// body is only a candidate: it holds when its edit is equivalent to body,
// so it is a request equivalent to body with the edited value at ptr.
func holds(f Format, body []byte, ptr string, reorder bool, edit func(parent any, key string) (any, bool)) bool {
	doc, err := decode(body)
	if err != nil {
		return false
	}
	tokens, ok := splitPointer(ptr)
	if !ok || len(tokens) == 0 {
		return false
	}
	o := Options{LimitSet: true}
	norm, err := Normalize(f, body, o)
	if err != nil {
		return false
	}
	try := func(doc any) bool {
		edited, ok := editAt(doc, tokens, edit)
		if !ok {
			return false
		}
		data, err := json.Marshal(edited)
		if err != nil {
			return false
		}
		v, err := Normalize(f, data, o)
		return err == nil && reflect.DeepEqual(norm, v)
	}
	if try(doc) {
		return true
	}
	if !reorder {
		return false
	}
	for d := range tokens {
		a, isArray := resolve(doc, tokens[:d]).([]any)
		if !isArray {
			continue
		}
		i, ok := index(a, tokens[d])
		if !ok {
			continue
		}
		for k := range a {
			if k == i {
				continue
			}
			swapped, ok := editAt(doc, tokens[:d+1], func(parent any, _ string) (any, bool) {
				b := append([]any(nil), parent.([]any)...)
				b[i], b[k] = b[k], b[i]
				return b, true
			})
			if ok && try(swapped) {
				return true
			}
		}
	}
	return false
}

// resolve returns the value at tokens in doc, nil if there is none.
func resolve(doc any, tokens []string) any {
	for _, t := range tokens {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[t]
		case []any:
			i, ok := index(v, t)
			if !ok {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
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
