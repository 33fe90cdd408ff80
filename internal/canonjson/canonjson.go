// Package canonjson writes the canonical form of a JSON text in one pass
// over its bytes, without decoding it into maps: object members sorted by
// key, no insignificant whitespace, strings decoded and re-escaped one way
// ('"', '\\' and control characters escaped, everything else as UTF-8),
// numbers copied as written.
//
// It is written once for its two users, which configure a Writer for what
// each adds: canonical.CanonicalJSON's fast path (strict: it declines what
// its decoding path would write differently) and the replay harness's
// match keys (lenient, masking credentials on the way).
package canonjson

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Result is how Writer.Append ended.
type Result int

const (
	// OK: the text is JSON and its canonical form was appended.
	OK Result = iota
	// Invalid: the text is not JSON.
	Invalid
	// Declined: the text was JSON as far as it was read, up to something
	// the Writer leaves to its caller (see Writer). The rest is unread
	// and may still turn out not to be JSON.
	Declined
)

// A Writer appends canonical forms of JSON texts. The zero Writer
// declines every array and object (MaxDepth 0); a Writer may be reused
// (it keeps its scratch space) but not shared between goroutines.
type Writer struct {
	// MaxDepth is the deepest nesting written: an array or object inside
	// MaxDepth others is Declined.
	MaxDepth int

	// Lenient takes strings and keys as encoding/json decodes them:
	// invalid UTF-8 and an escaped surrogate not in a pair become U+FFFD,
	// keys may hold escapes, and of a repeated key the last member is
	// kept. Members are then ordered by their keys as written, closing
	// quote included (the order of the replay harness's match keys, which
	// only need one fixed order). Without Lenient those strings and keys
	// are Declined, so that a key's written bytes are its value and
	// members are ordered by their keys' bytes, as encoding/json's decoded
	// maps sorted by key are.
	Lenient bool

	// Scrub, if set, is given each string, quotes included, that holds an
	// escaped quote ("\""), and the string is read from what it returns
	// instead (read without Scrub; it must be a JSON string, or the text
	// is Invalid). What comes before the first escaped quote is read first
	// and must be valid either way.
	Scrub func(quoted []byte) []byte

	// Value, if set, is called for each member whose key has no escape,
	// with the key as written (without quotes) and the text from the
	// member's value on. When it reports ok, repl is written in place of
	// the value, unchecked, and reading goes on n bytes further.
	Value func(key, rest []byte) (repl []byte, n int, ok bool)

	src     []byte
	out     []byte
	members []member
	scratch []byte
}

// member is an object member written to out[start:end], its key (quoted)
// at out[start:keyEnd].
type member struct{ start, keyEnd, end int }

// Append appends the canonical form of the JSON text src to dst. Unless
// it returns OK, what it appended is unspecified.
func (w *Writer) Append(dst, src []byte) ([]byte, Result) {
	w.src, w.out = src, dst
	i, r := w.value(SkipSpace(src, 0), 0)
	if r == OK && SkipSpace(src, i) != len(src) {
		r = Invalid
	}
	out := w.out
	w.src, w.out = nil, nil
	return out, r
}

// SkipSpace returns the index of the first byte of b from i on that is
// not JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value writes the value at src[i] and returns the index after it.
func (w *Writer) value(i, depth int) (int, Result) {
	if i >= len(w.src) {
		return i, Invalid
	}
	switch ch := w.src[i]; {
	case ch == '{':
		return w.object(i, depth)
	case ch == '[':
		return w.array(i, depth)
	case ch == '"':
		j, _, r := w.str(i)
		return j, r
	case ch == '-' || ch >= '0' && ch <= '9':
		return w.number(i)
	case ch == 't':
		return w.literal(i, "true")
	case ch == 'f':
		return w.literal(i, "false")
	case ch == 'n':
		return w.literal(i, "null")
	}
	return i, Invalid
}

func (w *Writer) literal(i int, lit string) (int, Result) {
	if !bytes.HasPrefix(w.src[i:], []byte(lit)) {
		return i, Invalid
	}
	w.out = append(w.out, lit...)
	return i + len(lit), OK
}

// number checks JSON's number grammar and copies the number as written,
// as json.Number keeps it.
func (w *Writer) number(i int) (int, Result) {
	s, j := w.src, i
	if s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = digits(s, j)
	default:
		return i, Invalid
	}
	if j < len(s) && s[j] == '.' {
		if k := digits(s, j+1); k > j+1 {
			j = k
		} else {
			return i, Invalid
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if k := digits(s, j); k > j {
			j = k
		} else {
			return i, Invalid
		}
	}
	w.out = append(w.out, s[i:j]...)
	return j, OK
}

// digits returns the index after the decimal digits at s[j].
func digits(s []byte, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

// str writes the string at src[i] with its decoded value re-escaped:
// '"', '\\' and control characters escaped, everything else as UTF-8. It
// returns the index after the string and whether the string held an
// escape.
func (w *Writer) str(i int) (int, bool, Result) {
	s := w.src
	start := len(w.out)
	w.out = append(w.out, '"')
	j := i + 1
	escaped := false
	for {
		// Copy the run of bytes that stand for themselves.
		k := j
		ascii := true
		for k < len(s) && s[k] >= 0x20 && s[k] != '"' && s[k] != '\\' {
			if s[k] >= utf8.RuneSelf {
				ascii = false
			}
			k++
		}
		switch {
		case ascii || utf8.Valid(s[j:k]):
			w.out = append(w.out, s[j:k]...)
		case w.Lenient:
			w.out = appendValid(w.out, s[j:k])
		default:
			return i, escaped, Declined
		}
		j = k
		if j >= len(s) || s[j] < 0x20 {
			return i, escaped, Invalid // unclosed, or a raw control character
		}
		if s[j] == '"' {
			w.out = append(w.out, '"')
			return j + 1, escaped, OK
		}
		// An escape.
		escaped = true
		if j+1 >= len(s) {
			return i, escaped, Invalid
		}
		switch e := s[j+1]; e {
		case '"':
			if w.Scrub != nil {
				w.out = w.out[:start]
				return w.scrubbed(i)
			}
			w.out = append(w.out, '\\', e)
			j += 2
		case '\\', 'b', 'f', 'n', 'r', 't':
			w.out = append(w.out, '\\', e)
			j += 2
		case '/':
			w.out = append(w.out, '/')
			j += 2
		case 'u':
			r, ok := hex4(s, j+2)
			if !ok {
				return i, escaped, Invalid
			}
			j += 6
			if utf16.IsSurrogate(r) {
				d := utf8.RuneError
				if j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
					if r2, ok := hex4(s, j+2); ok {
						d = utf16.DecodeRune(r, r2)
					}
				}
				switch {
				case d != utf8.RuneError:
					j += 6 // the pair's second half
				case !w.Lenient:
					return i, escaped, Declined
				}
				r = d // U+FFFD for a lone half, as encoding/json decodes it
			}
			w.out = appendRune(w.out, r)
		default:
			return i, escaped, Invalid
		}
	}
}

// scrubbed writes the string at src[i], which holds an escaped quote, as
// Scrub rewrites it. The string ends at the first quote not escaped.
func (w *Writer) scrubbed(i int) (int, bool, Result) {
	s := w.src
	j := i + 1
	for ; j < len(s) && s[j] != '"'; j++ {
		if s[j] == '\\' {
			j++
		}
	}
	if j >= len(s) {
		return i, true, Invalid
	}
	q := w.Scrub(s[i : j+1])
	src, scrub := w.src, w.Scrub
	w.src, w.Scrub = q, nil
	k, _, r := w.str(0)
	w.src, w.Scrub = src, scrub
	if r == OK && k != len(q) {
		r = Invalid
	}
	if r != OK {
		return i, true, r
	}
	return j + 1, true, OK
}

// appendValid appends b with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json decodes a string.
func appendValid(out, b []byte) []byte {
	for k := 0; k < len(b); {
		r, size := utf8.DecodeRune(b[k:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, r)
		} else {
			out = append(out, b[k:k+size]...)
		}
		k += size
	}
	return out
}

// hex4 decodes the four hex digits at s[i].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, ch := range s[i : i+4] {
		switch {
		case ch >= '0' && ch <= '9':
			ch -= '0'
		case ch >= 'a' && ch <= 'f':
			ch -= 'a' - 10
		case ch >= 'A' && ch <= 'F':
			ch -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(ch)
	}
	return r, true
}

const hexDigits = "0123456789abcdef"

// appendRune appends r escaped as the canonical form escapes it.
func appendRune(out []byte, r rune) []byte {
	switch {
	case r == '"' || r == '\\':
		return append(out, '\\', byte(r))
	case r == '\b':
		return append(out, `\b`...)
	case r == '\f':
		return append(out, `\f`...)
	case r == '\n':
		return append(out, `\n`...)
	case r == '\r':
		return append(out, `\r`...)
	case r == '\t':
		return append(out, `\t`...)
	case r < 0x20:
		return append(out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
	}
	return utf8.AppendRune(out, r)
}

func (w *Writer) array(i, depth int) (int, Result) {
	i, r, done := w.open(i, depth, ']')
	if done {
		return i, r
	}
	for more := true; more; {
		if i, r = w.value(i, depth+1); r != OK {
			return i, r
		}
		if i, more, r = w.next(i, ']'); r != OK {
			return i, r
		}
	}
	w.out = append(w.out, ']')
	return i, OK
}

// object writes the members as they come, then, when their keys are out
// of order or repeat, rewrites them sorted.
func (w *Writer) object(i, depth int) (int, Result) {
	i, r, done := w.open(i, depth, '}')
	if done {
		return i, r
	}
	first := len(w.out)
	base := len(w.members)
	defer func() { w.members = w.members[:base] }()
	sorted := true
	for more := true; more; {
		if i >= len(w.src) || w.src[i] != '"' {
			return i, Invalid
		}
		start := len(w.out)
		j, escaped, r := w.str(i)
		if r != OK {
			return i, r
		}
		if escaped && !w.Lenient {
			return i, Declined
		}
		keyEnd := len(w.out)
		key := w.src[i+1 : j-1]
		i = SkipSpace(w.src, j)
		if i >= len(w.src) || w.src[i] != ':' {
			return i, Invalid
		}
		w.out = append(w.out, ':')
		i = SkipSpace(w.src, i+1)
		if repl, n, ok := w.replaced(escaped, key, i); ok {
			w.out = append(w.out, repl...)
			i += n
		} else if i, r = w.value(i, depth+1); r != OK {
			return i, r
		}
		m := member{start, keyEnd, len(w.out)}
		if n := len(w.members); n > base {
			switch w.compare(w.members[n-1], m) {
			case 0:
				if !w.Lenient {
					return i, Declined // a repeated key: the last one's value counts
				}
				sorted = false
			case 1:
				sorted = false
			}
		}
		w.members = append(w.members, m)
		if i, more, r = w.next(i, '}'); r != OK {
			return i, r
		}
	}
	if !sorted && !w.sortMembers(first, w.members[base:]) {
		return i, Declined
	}
	w.out = append(w.out, '}')
	return i, OK
}

// open writes the bracket at src[i] that opens an array or object nested
// depth deep, and skips the space after it. When the array or object is
// empty it writes the close too and reports done, as it does when the
// nesting is Declined.
func (w *Writer) open(i, depth int, close byte) (int, Result, bool) {
	if depth >= w.MaxDepth {
		return i, Declined, true
	}
	w.out = append(w.out, w.src[i])
	i = SkipSpace(w.src, i+1)
	if i < len(w.src) && w.src[i] == close {
		w.out = append(w.out, close)
		return i + 1, OK, true
	}
	return i, OK, false
}

// next reads what follows an element of an array or object: a comma,
// which it writes, and more reports, or the close, which the caller
// writes. It returns the index of the next element or after the close.
func (w *Writer) next(i int, close byte) (int, bool, Result) {
	i = SkipSpace(w.src, i)
	if i >= len(w.src) {
		return i, false, Invalid
	}
	switch w.src[i] {
	case ',':
		w.out = append(w.out, ',')
		return SkipSpace(w.src, i+1), true, OK
	case close:
		return i + 1, false, OK
	}
	return i, false, Invalid
}

// replaced asks Value for the value at src[i] of a member with key.
func (w *Writer) replaced(escaped bool, key []byte, i int) ([]byte, int, bool) {
	if w.Value == nil || escaped {
		return nil, 0, false
	}
	return w.Value(key, w.src[i:])
}

// compare orders members by key: by the key's bytes without its quotes,
// or when Lenient with its closing quote (see Writer.Lenient).
func (w *Writer) compare(a, b member) int {
	if w.Lenient {
		return bytes.Compare(w.out[a.start+1:a.keyEnd], w.out[b.start+1:b.keyEnd])
	}
	return bytes.Compare(w.out[a.start+1:a.keyEnd-1], w.out[b.start+1:b.keyEnd-1])
}

// sortMembers rewrites the members, which lie one after another (with a
// comma between) from out[first], in the order of their keys, the last of
// a repeated key only when Lenient; false for a repeated key otherwise.
func (w *Writer) sortMembers(first int, ms []member) bool {
	slices.SortStableFunc(ms, w.compare)
	n := 0
	for k, m := range ms {
		if k+1 < len(ms) && w.compare(m, ms[k+1]) == 0 {
			if !w.Lenient {
				return false
			}
			continue // the last value counts, as in encoding/json
		}
		ms[n] = m
		n++
	}
	w.scratch = append(w.scratch[:0], w.out[first:]...)
	w.out = w.out[:first]
	for k, m := range ms[:n] {
		if k > 0 {
			w.out = append(w.out, ',')
		}
		w.out = append(w.out, w.scratch[m.start-first:m.end-first]...)
	}
	return true
}
