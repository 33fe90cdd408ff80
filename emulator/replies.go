package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// ParseReplies reads a replies file, as `conform emulate --replies` takes
// it: a JSON array of Reply objects in their snake_case form, served in
// order. Unknown fields, values of the wrong type, tool calls without a
// name or with an input that is not an object, and unknown profiles are
// errors, which name the file (name), the line and column, and the reply
// and field: "replies.json:3:14: reply 1: tool_calls: want an array,
// got a string".
func ParseReplies(name string, data []byte) ([]Reply, error) {
	fail := func(off int64, format string, args ...any) error {
		line, col := lineCol(data, off)
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty: want a JSON array of replies, such as [{\"text\": \"Hello!\"}]", name)
	}
	if err != nil {
		return nil, syntaxError(fail, data, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fail(0, "want a JSON array of replies, such as [{\"text\": \"Hello!\"}], not %s", jsonKind(tok))
	}
	var replies []Reply
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(fail, data, dec, err)
		}
		// InputOffset was before the separator and spaces: point at the
		// reply itself.
		start += int64(len(data[start:]) - len(bytes.TrimLeft(data[start:], ", \t\r\n")))
		r, err := parseReply(raw)
		if err != nil {
			var pe *replyError
			if errors.As(err, &pe) {
				return nil, fail(start+pe.off, "reply %d: %s", i, pe.msg)
			}
			return nil, fail(start, "reply %d: %v", i, err)
		}
		replies = append(replies, r)
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(fail, data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(dec.InputOffset(), "text after the array of replies")
	}
	return replies, nil
}

// replyError is a reply's error at an offset into the reply.
type replyError struct {
	off int64
	msg string
}

func (e *replyError) Error() string { return e.msg }

// parseReply decodes one reply strictly and checks it.
func parseReply(raw json.RawMessage) (Reply, error) {
	var r Reply
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '{' {
		var v any
		json.Unmarshal(raw, &v) //nolint:errcheck // raw is valid JSON
		return r, &replyError{0, "want an object such as {\"text\": \"Hello!\"}, not " + jsonKind(v)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return r, &replyError{te.Offset - 1, fmt.Sprintf("%s: want %s, got %s", fieldPath(te.Field), wantKind(te.Type), te.Value)}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			field := strings.TrimPrefix(err.Error(), "json: unknown field ")
			return r, &replyError{int64(bytes.Index(raw, []byte(field))), "unknown field " + field + " (the fields are Reply's JSON names: text, thinking, tool_calls, stop_reason, usage, error, ...)"}
		}
		return r, err
	}
	if err := r.check(); err != nil {
		return r, &replyError{int64(bytes.Index(raw, []byte(`"tool_calls"`))), err.Error()}
	}
	if r.Profile != "" {
		if _, ok := LookupProfile(r.Profile); !ok {
			return r, &replyError{int64(bytes.Index(raw, []byte(`"profile"`))), fmt.Sprintf("profile: unknown profile %q (known: %s)", r.Profile, strings.Join(profileNames(), ", "))}
		}
	}
	return r, nil
}

// syntaxError places a decoder's error in the file. A decoder's syntax
// error counts from where it started the value, so the whole file is
// scanned again for the place.
func syntaxError(fail func(int64, string, ...any) error, data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		var v any
		if err := json.Unmarshal(data, &v); errors.As(err, &se) {
			return fail(se.Offset-1, "not JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
		}
		return fail(se.Offset-1, "not JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fail(dec.InputOffset(), "not JSON: the file ends inside the array (a missing ] or })")
	}
	return fail(dec.InputOffset(), "%v", err)
}

// lineCol turns a byte offset into a line and column, counting from 1.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// fieldPath is a decoder's field path as the file spells it; the decoder
// gives struct fields by their JSON names already.
func fieldPath(f string) string {
	if f == "" {
		return "value"
	}
	return f
}

// wantKind names a Go type as the JSON it decodes from.
func wantKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return "JSON"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// jsonKind names a decoded JSON value's kind.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "another value"
}
