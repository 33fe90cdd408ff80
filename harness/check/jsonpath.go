package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/harness/scenario"
)

// resolvePointer returns the value at ptr in doc (a decoded JSON value).
// An array index may be negative, counting from the end (-1 is the last
// element), which RFC 6901 does not define but expectations need.
func resolvePointer(doc any, ptr string) (any, bool) {
	tokens, err := scenario.SplitPointer(ptr)
	if err != nil {
		return nil, false
	}
	cur := doc
	for _, tok := range tokens {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil {
				return nil, false
			}
			if i < 0 {
				i += len(v)
			}
			if i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// decodeJSON decodes data with numbers kept as json.Number, so that
// comparisons are exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// jsonValueEqual compares two decoded JSON values; numbers compare by
// value, so 1 equals 1.0.
func jsonValueEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		x, err1 := scenario.ParseDecimal(an.String())
		y, err2 := scenario.ParseDecimal(bn.String())
		if err1 == nil && err2 == nil {
			return x.Equal(y)
		}
		return an == bn
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !jsonValueEqual(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !jsonValueEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// jsonContains reports where got fails to contain want, "" when it does:
// objects by subset of keys, arrays element by element (got may not be
// longer or shorter), anything else by equality. The result names the
// first mismatch by JSON Pointer.
func jsonContains(want, got any, at string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s, want an object", orRoot(at), describeJSON(got))
		}
		for _, k := range sortedKeys(w) {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s: missing", at+"/"+scenario.EscapePointer(k))
			}
			if m := jsonContains(w[k], gv, at+"/"+scenario.EscapePointer(k)); m != "" {
				return m
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: %s, want an array", orRoot(at), describeJSON(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: %d element(s), want %d", orRoot(at), len(g), len(w))
		}
		for i := range w {
			if m := jsonContains(w[i], g[i], at+"/"+strconv.Itoa(i)); m != "" {
				return m
			}
		}
		return ""
	}
	if !jsonValueEqual(want, got) {
		return fmt.Sprintf("%s: %s, want %s", orRoot(at), describeJSON(got), describeJSON(want))
	}
	return ""
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describeJSON renders a decoded value compactly for messages.
func describeJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(data))
}
