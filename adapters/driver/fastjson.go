package driver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The helpers below let a stream decoder read the common events of its
// wire format — text and argument deltas — without reflection, and fall
// back to its full decoder (encoding/json into its event struct) for
// everything else. Each reports false for any input it does not read
// exactly as encoding/json reads it: a decoder's fast path fills the same
// event struct the full decoder would, or declines, so its output is the
// same byte for byte (each provider proves it with a differential test
// and a fuzz target).

// maxFastDepth bounds the nesting the helpers skip over; deeper values go
// to the full decoder.
const maxFastDepth = 64

// JSONMembers calls f with the key (as written, without quotes; keys with
// escapes are declined) and the raw value of each member of the JSON
// object that data holds, whitespace around it allowed. It returns false
// when data is not exactly one well-formed object, when a key repeats, or
// when f returns false.
func JSONMembers(data []byte, f func(key, value []byte) bool) bool {
	i := skipWS(data, 0)
	end, ok := members(data, i, 0, f)
	return ok && skipWS(data, end) == len(data)
}

// members reads the object at data[i], calling f for each member (f may
// be nil), and returns the index after it.
func members(data []byte, i, depth int, f func(key, value []byte) bool) (int, bool) {
	if i >= len(data) || data[i] != '{' || depth >= maxFastDepth {
		return i, false
	}
	var first [16]uint64 // keys of this object (start<<32 | end in data), to decline duplicates
	seen := first[:0]    // on the heap past 16 keys (a Responses response object has 30)
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, false
		}
		kEnd, plain, ok := scanString(data, i)
		if !ok || !plain {
			return i, false
		}
		key := data[i+1 : kEnd-1]
		if f != nil {
			var dup bool
			if seen, dup = addKey(data, seen, i+1, kEnd-1); dup {
				return i, false
			}
		}
		i = skipWS(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return i, false
		}
		vStart := skipWS(data, i+1)
		vEnd, ok := skipValue(data, vStart, depth+1)
		if !ok {
			return i, false
		}
		if f != nil && !f(key, data[vStart:vEnd]) {
			return i, false
		}
		i = skipWS(data, vEnd)
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

// JSONElements calls f with each element of the JSON array value holds.
func JSONElements(value []byte, f func(elem []byte) bool) bool {
	return elements(value, f)
}

func elements(value []byte, f func(elem []byte) bool) bool {
	i := skipWS(value, 0)
	if i >= len(value) || value[i] != '[' {
		return false
	}
	i = skipWS(value, i+1)
	if i < len(value) && value[i] == ']' {
		return skipWS(value, i+1) == len(value)
	}
	for {
		end, ok := skipValue(value, i, 1)
		if !ok || !f(value[i:end]) {
			return false
		}
		i = skipWS(value, end)
		if i >= len(value) {
			return false
		}
		switch value[i] {
		case ',':
			i = skipWS(value, i+1)
		case ']':
			return skipWS(value, i+1) == len(value)
		default:
			return false
		}
	}
}

// JSONString returns the string a raw JSON string value holds, decoded
// as encoding/json decodes it (invalid UTF-8 and lone surrogates become
// U+FFFD).
func JSONString(value []byte) (string, bool) {
	return (*Strings)(nil).JSONString(value)
}

// Strings hands out the strings a stream's fast path decodes (its text,
// thinking and argument deltas) from blocks of memory it allocates a few
// KiB at a time, so that the many short deltas of a
// stream cost one allocation per block instead of one each. A string it
// returned is never written again; it keeps its block alive, as a
// substring keeps its string, so a caller that holds on to one small
// delta holds a block. The zero value is ready to use; a nil *Strings
// allocates each string by itself. A Strings serves one stream: it is not
// safe for concurrent use, and it must not be copied once used.
type Strings struct{ b strings.Builder }

// stringsBlock is the size of the blocks a Strings allocates once it has
// allocated a few smaller ones, from minStringsBlock up (a larger string
// gets a block of its own size).
const stringsBlock = 4 << 10

// minStringsBlock is the size of a Strings' first block.
const minStringsBlock = 256

// JSONString returns the string a raw JSON string value holds, as
// encoding/json decodes it, allocated from s; false when value is not
// exactly one well-formed JSON string.
func (s *Strings) JSONString(value []byte) (string, bool) {
	end, plain, ok := scanString(value, 0)
	if !ok || end != len(value) {
		return "", false
	}
	return s.unquoted(value[1:end-1], plain), true
}

// unquoted returns the contents of a well-formed string (scanString
// accepted it, and found it plain or not), decoded, from s.
func (s *Strings) unquoted(raw []byte, plain bool) string {
	switch {
	case len(raw) == 0:
		return ""
	case s == nil && plain:
		return string(raw)
	case s == nil:
		var out strings.Builder // one allocation: the string itself
		out.Grow(len(raw))
		unquote(&out, raw)
		return out.String()
	}
	if s.b.Cap()-s.b.Len() < len(raw) {
		// A fresh block, twice the last up to stringsBlock (a short
		// stream stays small); the full one stays with its strings.
		size := max(min(2*s.b.Cap(), stringsBlock), minStringsBlock, len(raw))
		s.b = strings.Builder{}
		s.b.Grow(size)
	}
	start := s.b.Len()
	if plain {
		s.b.Write(raw)
	} else {
		unquote(&s.b, raw) // may outgrow the block (U+FFFD is longer than the byte it replaces): the builder then moves on to a larger copy, and earlier strings keep the old one
	}
	return s.b.String()[start:]
}

// JSONStringEquals reports whether a raw JSON string value holds exactly
// s, with no escape in it.
func JSONStringEquals(value []byte, s string) bool {
	return len(value) == len(s)+2 && value[0] == '"' && value[len(value)-1] == '"' && string(value[1:len(value)-1]) == s
}

// JSONInt returns the integer a raw JSON number holds, for numbers written
// as plain decimal integers that fit in an int32 (others decline).
func JSONInt(value []byte) (int, bool) {
	v, neg := value, false
	if len(v) > 0 && v[0] == '-' {
		v, neg = v[1:], true
	}
	if len(v) == 0 || len(v) > 9 || v[0] == '0' && len(v) > 1 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// JSONIgnores reports whether encoding/json ignores a member named key
// when it decodes an object into a struct with these JSON field names:
// key is ASCII and matches none of them, even without case. A fast path
// skips such members and declines every other one it does not read.
func JSONIgnores(key []byte, fields []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false // encoding/json folds some non-ASCII letters to ASCII ones
		}
	}
	for _, f := range fields {
		if len(f) == len(key) && asciiEqualFold(key, f) { // an ASCII key folds only onto a name of its length
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether the ASCII key and name are equal
// without case, as strings.EqualFold does for them (the Kelvin sign and
// the long s fold onto k and s, but are not ASCII: JSONIgnores declines
// any key that is not).
func asciiEqualFold(key []byte, name string) bool {
	for i := range len(key) {
		a, b := key[i], name[i]
		if a == b {
			continue
		}
		if a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z' {
			return false
		}
	}
	return true
}

// IsJSONNull reports whether a raw value is null.
func IsJSONNull(value []byte) bool { return string(value) == "null" }

// skipWS returns the index of the first byte from data[i] on that is not
// JSON whitespace. A byte above the space is none: one comparison for the
// common case, a token right there.
func skipWS(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the index after the string at data[i], whether it
// holds no escape and only valid UTF-8 (so its bytes are its value), and
// whether it is well-formed.
func scanString(data []byte, i int) (end int, plain, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return i, false, false
	}
	plain, ascii := true, true
	for j := i + 1; j < len(data); j++ {
		// Eight bytes at a time while none of them needs a look: the
		// text of a delta is mostly printable ASCII.
		for j+8 <= len(data) && !special8(binary.LittleEndian.Uint64(data[j:])) {
			j += 8
		}
		if j >= len(data) {
			break
		}
		c := data[j]
		switch {
		case c == '"':
			if !ascii && plain && !utf8.Valid(data[i+1:j]) {
				plain = false
			}
			return j + 1, plain, true
		case c == '\\':
			plain = false
			j++
			if j >= len(data) {
				return j, false, false
			}
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(data) {
					return j, false, false
				}
				for _, h := range data[j+1 : j+5] {
					if !isHex(h) {
						return j, false, false
					}
				}
				j += 4
			default:
				return j, false, false
			}
		case c < 0x20:
			return j, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return len(data), false, false
}

// special8 reports whether any of the eight bytes in w (little-endian) is
// one scanString must look at: a quote, a backslash, a control byte or a
// byte of a multi-byte UTF-8 sequence. (Each term is the classic
// has-a-zero-byte test, exact about whether some byte matches.)
func special8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ ('"' * ones)
	backslash := w ^ ('\\' * ones)
	return ((w-0x20*ones)&^w|(quote-ones)&^quote|(backslash-ones)&^backslash|w)&highs != 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote appends a well-formed string's contents (scanString accepted
// them) to out, decoded as encoding/json decodes them.
func unquote(out *strings.Builder, raw []byte) {
	for k := 0; k < len(raw); {
		if raw[k] != '\\' {
			// The run up to the next escape in one copy when it is
			// valid UTF-8, as it mostly is (a tool call's arguments
			// restated as a string escape each quote, between plain
			// runs); else rune by rune, U+FFFD for each invalid byte,
			// as encoding/json decodes it.
			e := bytes.IndexByte(raw[k:], '\\')
			if e < 0 {
				e = len(raw) - k
			}
			run := raw[k : k+e]
			if utf8.Valid(run) {
				out.Write(run)
			} else {
				for len(run) > 0 {
					r, size := utf8.DecodeRune(run)
					out.WriteRune(r)
					run = run[size:]
				}
			}
			k += e
			continue
		}
		switch e := raw[k+1]; e {
		case '"', '\\', '/':
			out.WriteByte(e)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := hexRune(raw[k+2 : k+6])
			k += 6
			if utf16.IsSurrogate(r) {
				if k+6 <= len(raw) && raw[k] == '\\' && raw[k+1] == 'u' {
					if d := utf16.DecodeRune(r, hexRune(raw[k+2:k+6])); d != utf8.RuneError {
						out.WriteRune(d)
						k += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out.WriteRune(r)
			continue
		}
		k += 2
	}
}

func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// skipValue returns the index after the well-formed JSON value at
// data[i], checking all of it: a value nested depth deep, whose objects
// and arrays are nested maxFastDepth deep or more, is declined. It is one
// loop over the value, however nested, with no call per value but the
// string scans: it is what checks every member a fast path does not
// read, and what ValidJSON is.
func skipValue(data []byte, i, depth int) (int, bool) {
	// Scalars first: most skipped members are one.
	if i < len(data) {
		switch c := data[i]; {
		case c == '"':
			end, _, ok := scanString(data, i)
			return end, ok
		case c != '{' && c != '[':
			return skipScalar(data, i)
		}
	}
	var arrays uint64 // bit k set: the container k levels down is an array
	level := 0        // containers open
	var ok bool
	for {
		// A value at data[i].
		if i >= len(data) {
			return i, false
		}
		switch c := data[i]; c {
		case '{', '[':
			if depth >= maxFastDepth {
				return i, false
			}
			bit := uint64(1) << uint(level)
			if c == '[' {
				arrays |= bit
			} else {
				arrays &^= bit
			}
			depth++
			level++
			i = skipWS(data, i+1)
			if i < len(data) && (c == '{' && data[i] == '}' || c == '[' && data[i] == ']') {
				i++
				depth--
				level--
				break
			}
			if c == '[' {
				continue // the first element
			}
			if i, ok = skipKey(data, i); !ok {
				return i, false
			}
			continue
		case '"':
			if i, _, ok = scanString(data, i); !ok {
				return i, false
			}
		default:
			if i, ok = skipScalar(data, i); !ok {
				return i, false
			}
		}
		// After a value: close the containers it ends, then the next
		// element or member.
		for {
			if level == 0 {
				return i, true
			}
			i = skipWS(data, i)
			if i >= len(data) {
				return i, false
			}
			inArray := arrays&(uint64(1)<<uint(level-1)) != 0
			c := data[i]
			if c == ',' {
				i = skipWS(data, i+1)
				if !inArray {
					if i, ok = skipKey(data, i); !ok {
						return i, false
					}
				}
				break
			}
			if inArray && c == ']' || !inArray && c == '}' {
				i++
				depth--
				level--
				continue
			}
			return i, false
		}
	}
}

// skipKey checks the object key at data[i] (a plain string, as members
// requires of a key) and the colon after it, and returns the index of
// the member's value.
func skipKey(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return i, false
	}
	end, ok := scanKey(data, i)
	if !ok {
		return i, false
	}
	i = skipWS(data, end)
	if i >= len(data) || data[i] != ':' {
		return i, false
	}
	return skipWS(data, i+1), true
}

// skipScalar returns the index after the literal or number at data[i].
func skipScalar(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == 't':
		return jsonLiteral(data, i, "true")
	case c == 'f':
		return jsonLiteral(data, i, "false")
	case c == 'n':
		return jsonLiteral(data, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return jsonNumber(data, i)
	}
	return i, false
}

func jsonLiteral(data []byte, i int, lit string) (int, bool) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// jsonNumber returns the index after the JSON number at data[i].
func jsonNumber(data []byte, i int) (int, bool) {
	j := i
	if data[j] == '-' {
		j++
	}
	switch {
	case j >= len(data):
		return i, false
	case data[j] == '0':
		j++
	case data[j] >= '1' && data[j] <= '9':
		j = skipDigits(data, j+1)
	default:
		return i, false
	}
	if j < len(data) && data[j] == '.' {
		k := skipDigits(data, j+1)
		if k == j+1 {
			return i, false
		}
		j = k
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		k := skipDigits(data, j)
		if k == j {
			return i, false
		}
		j = k
	}
	return j, true
}

// skipDigits returns the index after the decimal digits from data[j] on.
func skipDigits(data []byte, j int) int {
	for j < len(data) && data[j] >= '0' && data[j] <= '9' {
		j++
	}
	return j
}

// ValidJSON reports whether data is one valid JSON value, exactly as
// json.Valid does, in one pass of the fast scanner (json.Valid decides
// what the scanner declines: values nested deeper than it reads, and
// invalid input, to be sure).
func ValidJSON(data []byte) bool {
	i := skipWS(data, 0)
	if end, ok := skipValue(data, i, 0); ok && skipWS(data, end) == len(data) {
		return true
	}
	return json.Valid(data)
}

// CompactObject returns data, a tool call's whole arguments, as
// json.Compact writes them when they are a JSON object (whitespace
// around it allowed), else nil: data itself (trimmed) when it has no
// whitespace between its tokens, as most arguments do, so that the
// common case is one validating pass and no copy.
func CompactObject(data []byte) json.RawMessage {
	i := skipWS(data, 0)
	if i == len(data) || data[i] != '{' {
		return nil
	}
	end, ok := skipValue(data, i, 0)
	if !ok || skipWS(data, end) != len(data) {
		return compactSlow(data[i:])
	}
	obj := data[i:end]
	if !spaced(obj) {
		return json.RawMessage(obj)
	}
	return compactSlow(obj)
}

func compactSlow(data []byte) json.RawMessage {
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return nil
	}
	return buf.Bytes()
}

// spaced reports whether the valid JSON value data holds whitespace
// outside its strings.
func spaced(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			return true
		case '"':
			// To the closing quote: one not escaped by an odd run of
			// backslashes (data is valid, so there is one).
			for {
				k := bytes.IndexByte(data[i+1:], '"')
				if k < 0 {
					return false
				}
				i += 1 + k
				n := 0
				for data[i-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		}
	}
	return false
}

// addKey records the object key data[start:end] in seen (each entry
// start<<32 | end in data) and reports whether an earlier key of the same
// object had the same text: a repeated key, which the fast paths decline
// (encoding/json keeps the last value).
func addKey(data []byte, seen []uint64, start, end int) ([]uint64, bool) {
	key := data[start:end]
	for _, k := range seen {
		if string(data[k>>32:k&0xffffffff]) == string(key) {
			return seen, true
		}
	}
	return append(seen, uint64(start)<<32|uint64(end)), false
}
