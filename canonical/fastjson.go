package canonical

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// appendCanonicalText appends the canonical form of the JSON text data
// to dst without decoding it into maps: one pass that checks the text,
// copies numbers and plain strings as they are, re-escapes the others
// and sorts each object's members in place. It reports false, with dst
// unspecified, for anything it leaves to the general path (decoding
// with encoding/json, then writeCanonical): text that is not JSON, an
// object key with an escape or a repeated key, an escaped surrogate not
// in a pair, invalid UTF-8, nesting deeper than fastDepth. Where it
// reports true its bytes are the general path's (FuzzCanonicalText).
func appendCanonicalText(dst, data []byte) ([]byte, bool) {
	c := textCanonicalizer{src: data, out: dst}
	i, ok := c.value(skipWS(data, 0), 0)
	if !ok || skipWS(data, i) != len(data) {
		return dst, false
	}
	return c.out, true
}

// fastDepth is the deepest nesting appendCanonicalText takes; deeper
// documents (and encoding/json's limit on them) are the general path's.
const fastDepth = 1000

// textCanonicalizer is appendCanonicalText's state: the members of the
// objects being written (a stack shared by the levels) and the scratch
// space members are sorted through.
type textCanonicalizer struct {
	src     []byte
	out     []byte
	members []textMember
	scratch []byte
}

// textMember is an object member written to out[start:end], its key
// (quoted) at out[start:keyEnd].
type textMember struct{ start, keyEnd, end int }

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value writes the value at src[i] and returns the index after it.
func (c *textCanonicalizer) value(i, depth int) (int, bool) {
	if i >= len(c.src) {
		return i, false
	}
	switch ch := c.src[i]; {
	case ch == '{':
		return c.object(i, depth)
	case ch == '[':
		return c.array(i, depth)
	case ch == '"':
		return c.str(i)
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number(i)
	case ch == 't':
		return c.literal(i, "true")
	case ch == 'f':
		return c.literal(i, "false")
	case ch == 'n':
		return c.literal(i, "null")
	}
	return i, false
}

func (c *textCanonicalizer) literal(i int, lit string) (int, bool) {
	if !bytes.HasPrefix(c.src[i:], []byte(lit)) {
		return i, false
	}
	c.out = append(c.out, lit...)
	return i + len(lit), true
}

// number checks JSON's number grammar and copies the number as written,
// as json.Number keeps it.
func (c *textCanonicalizer) number(i int) (int, bool) {
	s, j := c.src, i
	if s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	default:
		return i, false
	}
	if j < len(s) && s[j] == '.' {
		j++
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == k {
			return i, false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == k {
			return i, false
		}
	}
	c.out = append(c.out, s[i:j]...)
	return j, true
}

// str writes the string at src[i] as writeCanonicalString writes its
// decoded value: '"', '\\' and control characters escaped, everything
// else as UTF-8.
func (c *textCanonicalizer) str(i int) (int, bool) {
	s := c.src
	c.out = append(c.out, '"')
	j := i + 1
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
		if !ascii && !utf8.Valid(s[j:k]) {
			return i, false
		}
		c.out = append(c.out, s[j:k]...)
		j = k
		if j >= len(s) || s[j] < 0x20 {
			return i, false // unclosed, or a raw control character
		}
		if s[j] == '"' {
			c.out = append(c.out, '"')
			return j + 1, true
		}
		// An escape.
		if j+1 >= len(s) {
			return i, false
		}
		switch e := s[j+1]; e {
		case '"', '\\':
			c.out = append(c.out, '\\', e)
			j += 2
		case '/':
			c.out = append(c.out, '/')
			j += 2
		case 'b', 'f', 'n', 'r', 't':
			c.out = append(c.out, '\\', e)
			j += 2
		case 'u':
			r, ok := hex4(s, j+2)
			if !ok {
				return i, false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
					r2, ok = hex4(s, j+2)
				}
				if !ok {
					return i, false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return i, false
				}
				j += 6
			}
			c.out = appendEscapedRune(c.out, r)
		default:
			return i, false
		}
	}
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

// appendEscapedRune appends r as writeCanonicalString writes it.
func appendEscapedRune(out []byte, r rune) []byte {
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

func (c *textCanonicalizer) array(i, depth int) (int, bool) {
	if depth >= fastDepth {
		return i, false
	}
	c.out = append(c.out, '[')
	i = skipWS(c.src, i+1)
	if i < len(c.src) && c.src[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(i, depth+1); !ok {
			return i, false
		}
		i = skipWS(c.src, i)
		if i >= len(c.src) {
			return i, false
		}
		switch c.src[i] {
		case ',':
			c.out = append(c.out, ',')
			i = skipWS(c.src, i+1)
		case ']':
			c.out = append(c.out, ']')
			return i + 1, true
		default:
			return i, false
		}
	}
}

// object writes the members as they come, then, when their keys are out
// of order, rewrites them sorted. Keys are taken only without escapes, so
// that a key's bytes are its value and compare as the general path's
// sorted strings do.
func (c *textCanonicalizer) object(i, depth int) (int, bool) {
	if depth >= fastDepth {
		return i, false
	}
	c.out = append(c.out, '{')
	i = skipWS(c.src, i+1)
	if i < len(c.src) && c.src[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, true
	}
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	sorted := true
	for {
		if i >= len(c.src) || c.src[i] != '"' {
			return i, false
		}
		start := len(c.out)
		j, ok := c.str(i)
		if !ok || bytes.IndexByte(c.src[i:j], '\\') >= 0 {
			return i, false
		}
		keyEnd := len(c.out)
		i = skipWS(c.src, j)
		if i >= len(c.src) || c.src[i] != ':' {
			return i, false
		}
		c.out = append(c.out, ':')
		if i, ok = c.value(skipWS(c.src, i+1), depth+1); !ok {
			return i, false
		}
		m := textMember{start, keyEnd, len(c.out)}
		if n := len(c.members); n > base {
			switch bytes.Compare(c.key(c.members[n-1]), c.key(m)) {
			case 0:
				return i, false // a repeated key: the last one's value counts
			case 1:
				sorted = false
			}
		}
		c.members = append(c.members, m)
		i = skipWS(c.src, i)
		if i >= len(c.src) {
			return i, false
		}
		switch c.src[i] {
		case ',':
			c.out = append(c.out, ',')
			i = skipWS(c.src, i+1)
			continue
		case '}':
		default:
			return i, false
		}
		break
	}
	if !sorted && !c.sortMembers(c.members[base:]) {
		return i, false
	}
	c.out = append(c.out, '}')
	return i + 1, true
}

// key is m's key without its quotes.
func (c *textCanonicalizer) key(m textMember) []byte {
	return c.out[m.start+1 : m.keyEnd-1]
}

// sortMembers rewrites the members, which lie one after another (with a
// comma between) from ms[0].start, in the order of their keys; false for
// a key that repeats.
func (c *textCanonicalizer) sortMembers(ms []textMember) bool {
	slices.SortFunc(ms, func(a, b textMember) int { return bytes.Compare(c.key(a), c.key(b)) })
	for k := 1; k < len(ms); k++ {
		if bytes.Equal(c.key(ms[k-1]), c.key(ms[k])) {
			return false
		}
	}
	from := ms[0].start
	for _, m := range ms {
		from = min(from, m.start)
	}
	c.scratch = append(c.scratch[:0], c.out[from:]...)
	c.out = c.out[:from]
	for k, m := range ms {
		if k > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.scratch[m.start-from:m.end-from]...)
	}
	return true
}
