package driver

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// The walk below reads an event in one pass that both checks its syntax
// and descends into the members a fast path reads: where JSONMembers
// checks a whole value before its f sees it (and a fast path that
// descends then frames the same bytes again at each level), JSONObjectAt hands f the data from the value's first byte on, and
// f either reads the value itself, with the At functions below, which
// check what they read, or leaves it to the walk to check and skip. Each
// byte of the event is checked once, at the level that reads it.

// JSONObjectAt reads the JSON object at the start of data (no whitespace
// before it), checking the syntax of all of it, and returns its length.
// It calls f for each member with the key (as written, without quotes;
// keys with escapes are declined) and data from the member's value on;
// f returns the length of the value, having read and checked it with
// JSONObjectAt, JSONArrayAt, JSONValueAt or Strings.JSONStringAt, or 0
// to leave the value to the walk, which checks and skips it. It returns
// false when the object is not well-formed, a key repeats, f returns
// false, or f returns a length past the end of data.
func JSONObjectAt(data []byte, f func(key, rest []byte) (int, bool)) (int, bool) {
	if len(data) == 0 || data[0] != '{' {
		return 0, false
	}
	i := skipWS(data, 1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	var first [16]uint64 // keys of this object (start<<32 | end in data), to decline duplicates
	return objectMembers(data, i, first[:0], f, nil)
}

// marker notes, for JSONPrefix.Walk, where an object's first member that
// mark picks starts, and the keys before it.
type marker struct {
	mark func(key []byte) bool
	at   int         // the index of the picked key's quote in data, or -1
	p    *JSONPrefix // whose seen gets a copy of the keys before it
}

// objectMembers reads an object's members from data[i], the first key's
// quote, to the object's close, as JSONObjectAt describes; seen holds the
// keys already read (a resumed walk's). m, if not nil, notes the first
// member m.mark picks.
func objectMembers(data []byte, i int, seen []uint64, f func(key, rest []byte) (int, bool), m *marker) (int, bool) {
	for {
		if i >= len(data) || data[i] != '"' {
			return i, false
		}
		kEnd, ok := scanKey(data, i)
		if !ok {
			return i, false
		}
		key := data[i+1 : kEnd-1]
		if m != nil && m.at < 0 && m.mark(key) {
			m.at, m.p.seen = i, append(m.p.seen[:0], seen...)
		}
		var dup bool
		if seen, dup = addKey(data, seen, i+1, kEnd-1); dup {
			return i, false
		}
		i = skipWS(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return i, false
		}
		vStart := skipWS(data, i+1)
		n, ok := f(key, data[vStart:])
		if !ok || n < 0 || n > len(data)-vStart {
			return i, false
		}
		if n == 0 {
			end, ok := skipValue(data, vStart, 1)
			if !ok {
				return i, false
			}
			n = end - vStart
		}
		i = skipWS(data, vStart+n)
		if i >= len(data) {
			return i, false
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// JSONPrefix remembers an event's envelope: the leading bytes of the last
// object its Walk read in full, up to the first member mark picked (the
// first one the caller reads for more than the envelope). A stream
// repeats its envelope (id, object, created, model, ...) identically in
// every event, and the next event that starts with the same bytes is
// read from there on, its envelope not walked again: those bytes were
// checked, byte for byte, when first read. The zero JSONPrefix remembers
// nothing.
type JSONPrefix struct {
	bytes []byte   // the envelope, from the object's first byte (whitespace before it included) to the picked key's quote
	seen  []uint64 // the envelope's keys, to decline a later member that repeats one
	set   bool
}

// Walk is WalkJSONObject, reading data with f, that skips the envelope p
// remembers when data starts with it: f is not called for the envelope's
// members, and resumed says so, for the caller to restore what it read
// from them when they were first read (it must not depend on anything
// after the picked member). Otherwise it walks the whole object, and,
// if it is well-formed and has a member mark picks, remembers its
// envelope (when there is one: at least a member before the picked one);
// mark is called with the keys, in order, until it picks one,
// and must pick the same keys on every walk of p. The rest of the object
// — its members from the picked one on, its close and what follows —
// is checked on every walk, resumed or not.
func (p *JSONPrefix) Walk(data []byte, mark func(key []byte) bool, f func(key, rest []byte) (int, bool)) (resumed, ok bool) {
	if p.set && bytes.HasPrefix(data, p.bytes) {
		var first [16]uint64
		seen := append(first[:0], p.seen...)
		end, ok := objectMembers(data, skipWS(data, len(p.bytes)), seen, f, nil)
		return true, ok && skipWS(data, end) == len(data)
	}
	p.set = false
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false, false
	}
	j := skipWS(data, i+1)
	if j < len(data) && data[j] == '}' {
		return false, skipWS(data, j+1) == len(data)
	}
	var first [16]uint64
	m := marker{mark: mark, at: -1, p: p}
	end, ok := objectMembers(data, j, first[:0], f, &m)
	ok = ok && skipWS(data, end) == len(data)
	if ok && m.at >= 0 && len(p.seen) > 0 {
		// An envelope of at least one member ends after its comma, where
		// only a key may follow (after the brace alone, so may the close).
		p.bytes = append(p.bytes[:0], data[:m.at]...)
		p.set = true
	}
	return false, ok
}

// JSONArrayAt reads the JSON array at the start of data as JSONObjectAt
// reads an object: f is called with data from each element on and
// returns its length, having read it, or 0 to have the walk check and
// skip it.
func JSONArrayAt(data []byte, f func(rest []byte) (int, bool)) (int, bool) {
	if len(data) == 0 || data[0] != '[' {
		return 0, false
	}
	i := skipWS(data, 1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		n, ok := f(data[i:])
		if !ok || n < 0 || n > len(data)-i {
			return i, false
		}
		if n == 0 {
			end, ok := skipValue(data, i, 1)
			if !ok {
				return i, false
			}
			n = end - i
		}
		i = skipWS(data, i+n)
		if i >= len(data) {
			return i, false
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// JSONValueAt returns the well-formed JSON value at the start of data,
// checked, or false.
func JSONValueAt(data []byte) ([]byte, bool) {
	end, ok := skipValue(data, 0, 1)
	if !ok {
		return nil, false
	}
	return data[:end], true
}

// WalkJSONObject reads data, one JSON object with whitespace allowed
// around it, with JSONObjectAt.
func WalkJSONObject(data []byte, f func(key, rest []byte) (int, bool)) bool {
	i := skipWS(data, 0)
	n, ok := JSONObjectAt(data[i:], f)
	return ok && skipWS(data, i+n) == len(data)
}

// JSONStringAt returns the string at the start of data, decoded as
// encoding/json decodes it and allocated from s (see JSONString), and its
// length in data; false when data does not start with a well-formed
// JSON string.
func (s *Strings) JSONStringAt(data []byte) (string, int, bool) {
	end, plain, ok := scanString(data, 0)
	if !ok {
		return "", 0, false
	}
	return s.unquoted(data[1:end-1], plain), end, true
}

// scanKey returns the index after the key at data[i], a string that
// scanString finds plain (no escape, valid UTF-8), or false. Most keys
// are short, and a byte at a time is faster for them than scanString's
// eight; past a key's first eight bytes it goes eight at a time while
// none of them needs a look, as scanString does.
func scanKey(data []byte, i int) (int, bool) {
	ascii := true
	for j, n := i+1, 0; j < len(data); j++ {
		if n++; n > 8 {
			for j+8 <= len(data) && !special8(binary.LittleEndian.Uint64(data[j:])) {
				j += 8
			}
			if j >= len(data) {
				break
			}
		}
		switch c := data[j]; {
		case c == '"':
			return j + 1, ascii || utf8.Valid(data[i+1:j])
		case c == '\\' || c < 0x20:
			return j, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return len(data), false
}

// JSONStringAt is Strings.JSONStringAt with each string allocated by
// itself.
func JSONStringAt(data []byte) (string, int, bool) {
	return (*Strings)(nil).JSONStringAt(data)
}

// JSONNullAt reports whether data starts with null, and its length (the
// enclosing walk checks what follows it).
func JSONNullAt(data []byte) (int, bool) {
	if len(data) >= 4 && string(data[:4]) == "null" {
		return 4, true
	}
	return 0, false
}

// JSONIntAt returns the integer at the start of data (as JSONInt reads
// it: a plain decimal integer of at most nine digits) and its length,
// read in one pass; false for any other value, or none.
func JSONIntAt(data []byte) (v, n int, ok bool) {
	j, neg := 0, false
	if len(data) > 0 && data[0] == '-' {
		j, neg = 1, true
	}
	start := j
	for j < len(data) && j-start < 10 && data[j] >= '0' && data[j] <= '9' {
		v = v*10 + int(data[j]-'0')
		j++
	}
	switch digits := j - start; {
	case digits == 0 || digits > 9 || data[start] == '0' && digits > 1:
		return 0, 0, false
	case j < len(data) && (data[j] == '.' || data[j] == 'e' || data[j] == 'E' || data[j] >= '0' && data[j] <= '9'):
		return 0, 0, false // a fraction, an exponent, or more digits: not an int32
	}
	if neg {
		v = -v
	}
	return v, j, true
}
