package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/metis-llm/metis/internal/jsontype"
)

// JSONObject is a JSON object that keeps its members in the order they
// were written, for adapters that rewrite JSON Schemas: a rewritten schema
// must list properties in the caller's order, which is the order a model
// generates them in. Decode one with DecodeOrderedJSON; the zero value is
// an empty object.
type JSONObject struct {
	keys []string
	vals []any
}

// Len returns the number of members.
func (o *JSONObject) Len() int { return len(o.keys) }

// All yields the members in order. Setting an existing key while ranging
// is allowed.
func (o *JSONObject) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for i := range o.keys {
			if !yield(o.keys[i], o.vals[i]) {
				return
			}
		}
	}
}

// Has reports whether key is a member.
func (o *JSONObject) Has(key string) bool { return slices.Contains(o.keys, key) }

// Get returns the value of key, or nil when it is not a member.
func (o *JSONObject) Get(key string) any {
	if i := slices.Index(o.keys, key); i >= 0 {
		return o.vals[i]
	}
	return nil
}

// Set replaces the value of key in its place, or appends the member.
func (o *JSONObject) Set(key string, v any) {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

// MarshalJSON writes the object compactly with its members in order.
// Values are what DecodeOrderedJSON produces, or anything encoding/json
// encodes.
func (o *JSONObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeOrdered(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *JSONObject:
		buf.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeOrdered(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := encodeOrdered(buf, t.vals[i]); err != nil {
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

// MaxJSONDepth bounds the nesting DecodeOrderedJSON accepts, so that
// hostile input cannot exhaust the stack.
const MaxJSONDepth = 512

// DecodeOrderedJSON decodes one JSON value into *JSONObject, []any,
// string, json.Number, bool and nil values, keeping the member order of
// objects (a duplicate key keeps its first position and its last value,
// the value encoding/json would keep). Errors name the byte offset; data
// after the value and nesting deeper than MaxJSONDepth are errors.
func DecodeOrderedJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrderedValue(dec, 0)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return v, nil
}

func decodeOrderedValue(dec *json.Decoder, depth int) (any, error) {
	if depth > MaxJSONDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d levels", MaxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &JSONObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeOrderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// JSONKind names the JSON kind of a decoded value ("a string", "an
// object", ...) for error messages: internal/jsontype's names, with a
// DecodeOrderedJSON object "an object" too.
func JSONKind(v any) string {
	if _, ok := v.(*JSONObject); ok {
		return "an object"
	}
	return jsontype.Name(v)
}

// ParseRaw decodes an adapter's own ProviderRaw entry into T. A missing
// or malformed entry (written by something else) gives the zero T: what
// an adapter keeps there helps a later request, never makes it possible.
func ParseRaw[T any](data json.RawMessage) T {
	var r T
	if len(data) > 0 {
		if err := json.Unmarshal(data, &r); err != nil {
			var zero T
			return zero
		}
	}
	return r
}
