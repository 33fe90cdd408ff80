package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// CanonicalJSON returns the canonical JSON form of v, the form metis
// hashes, writes to golden files and compares request bodies in:
//
//   - v is first encoded with encoding/json; a json.RawMessage is taken as
//     the JSON text itself;
//   - object keys are sorted by their UTF-8 bytes at every level; a key
//     that repeats keeps its last value;
//   - there is no insignificant whitespace;
//   - numbers are kept exactly as written (1.0 stays 1.0, 1e3 stays 1e3),
//     never rounded through float64;
//   - strings escape only '"', '\\' and control characters (as \b, \f,
//     \n, \r, \t or \u00XX); everything else, including '<', '>', '&' and
//     non-ASCII text, is written as UTF-8. Invalid UTF-8 becomes U+FFFD.
//
// Two values with the same JSON content have the same canonical form
// whatever their key order or spacing.
func CanonicalJSON(v any) ([]byte, error) {
	var data []byte
	if raw, ok := v.(json.RawMessage); ok {
		data = raw
	} else {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	if out, ok := appendCanonicalText(make([]byte, 0, len(data)), data); ok {
		return out, nil
	}
	return canonicalDecoded(data)
}

// canonicalDecoded is CanonicalJSON's general path: data decoded with
// encoding/json into maps and slices, then written by writeCanonical.
func canonicalDecoded(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("canonical JSON: data after the top-level value")
	}
	var buf bytes.Buffer
	buf.Grow(len(data))
	writeCanonical(&buf, doc)
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		buf.WriteString(string(v))
	case string:
		writeCanonicalString(buf, v)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonicalString(buf, k)
			buf.WriteByte(':')
			writeCanonical(buf, v[k])
		}
		buf.WriteByte('}')
	}
}

const hexDigits = "0123456789abcdef"

func writeCanonicalString(buf *bytes.Buffer, s string) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			buf.WriteByte('\\')
			buf.WriteByte(c)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// HashMessage returns the SHA-256, in lower-case hex, of m's canonical
// JSON (see CanonicalJSON): the same for equal messages whatever key order
// or spacing they were decoded from, and stable across runs and versions
// as long as the JSON form is. Every field counts, id and created_at
// included; to hash content alone, zero those first.
func HashMessage(m Message) (string, error) {
	data, err := CanonicalJSON(m)
	if err != nil {
		return "", fmt.Errorf("hashing message %s: %w", m.ID, err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
