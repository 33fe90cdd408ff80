package replay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/secrets"
)

// A Player matches on a compact key computed once per recorded
// interaction and once per request: Canonical's head lines followed by
// the body in compact canonical JSON (keys sorted, no whitespace, strings
// in one escaping, numbers as written, credential values masked, canonical
// ids numbered) built in one pass over the bytes. Two requests have equal
// keys exactly when their Canonical texts are equal; the readable,
// indented text is built only to explain a mismatch.

// matchKey is the compact matching form of a request; names are the
// matched header names, lower-cased, sorted and without duplicates.
func matchKey(method string, u *url.URL, h http.Header, body []byte, names []string) string {
	var sb strings.Builder
	sb.Grow(len(method) + len(u.Path) + len(body) + 16)
	writeHead(&sb, method, u, h, names)
	sb.WriteByte('\n')
	sb.WriteString(compactBody(body))
	return sb.String()
}

// headerNames normalizes the matched header names as Canonical does.
func headerNames(headers []string) []string {
	names := make([]string, 0, len(headers))
	for _, name := range headers {
		names = append(names, strings.ToLower(name))
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// writeHead writes Canonical's head: the request line and the matched
// headers, each line ending in a newline.
func writeHead(sb *strings.Builder, method string, u *url.URL, h http.Header, names []string) {
	sb.WriteString(method)
	sb.WriteByte(' ')
	sb.WriteString(u.EscapedPath())
	if u.RawQuery != "" {
		if q := filterQuery(u.Query()); q != "" {
			sb.WriteByte('?')
			sb.WriteString(q)
		}
	}
	sb.WriteByte('\n')
	for _, name := range names {
		vals := h.Values(name)
		if len(vals) == 0 {
			continue
		}
		sb.WriteString(name)
		sb.WriteString(": ")
		for i, v := range vals {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(v)
		}
		sb.WriteByte('\n')
	}
}

// slowKey marks a body key made by declinedBody, for JSON nested past
// MaxKeyDepth, which the one-pass form declines.
const slowKey = "\x00readable\n"

// MaxKeyDepth bounds the nesting the one-pass canonical form follows.
const MaxKeyDepth = 256

// compactBody is the body part of matchKey.
func compactBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	c := canonicalizer{src: body, out: make([]byte, 0, len(body))}
	if i := c.value(skipSpace(body, 0), 0); c.ok && skipSpace(body, i) == len(body) {
		return NormalizeIDs(string(c.out))
	}
	if c.declined {
		return slowKey + declinedBody(body)
	}
	// Not JSON: the text itself, as Canonical keeps it.
	return canonicalBody(body)
}

// declinedBody is the body key of JSON the one-pass form declines:
// canonicalBody's text without its indentation, which for a body nested
// hundreds deep is most of the text (two spaces a level on every line)
// and most of the time. Indenting adds only whitespace outside strings,
// so two bodies' forms here are equal exactly when their canonicalBody
// texts are (TestMatchKeyAgreesWithCanonical, FuzzMatchKey); a body that
// turns out not to be JSON is its own text, ending in a newline as in
// canonicalBody, which compact JSON never ends in.
func declinedBody(body []byte) string {
	body = secrets.ScrubFields(body)
	if c, err := canonical.CanonicalJSON(json.RawMessage(body)); err == nil {
		return NormalizeIDs(string(c))
	}
	s := string(body)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return NormalizeIDs(s)
}

// canonicalizer writes one JSON value in compact canonical form.
type canonicalizer struct {
	src      []byte
	out      []byte
	ok       bool // the last value parsed
	declined bool // valid so far, but a case left to declinedBody
	members  []member
	scratch  []byte
}

// member is an object member written to out[start:end], its key (as
// written) ending at keyEnd.
type member struct{ start, keyEnd, end int }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value parses the value at src[i] and appends its canonical form,
// returning the index after it; c.ok reports success.
func (c *canonicalizer) value(i, depth int) int {
	c.ok = false
	if i >= len(c.src) {
		return i
	}
	switch ch := c.src[i]; {
	case ch == '{':
		return c.object(i, depth)
	case ch == '[':
		return c.array(i, depth)
	case ch == '"':
		j, _ := c.str(i, false)
		return j
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number(i)
	case ch == 't':
		return c.literal(i, "true")
	case ch == 'f':
		return c.literal(i, "false")
	case ch == 'n':
		return c.literal(i, "null")
	}
	return i
}

func (c *canonicalizer) literal(i int, lit string) int {
	if !bytes.HasPrefix(c.src[i:], []byte(lit)) {
		return i
	}
	c.out = append(c.out, lit...)
	c.ok = true
	return i + len(lit)
}

// number checks JSON's number grammar and copies the number as written.
func (c *canonicalizer) number(i int) int {
	s, j := c.src, i
	if j < len(s) && s[j] == '-' {
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
		return i
	}
	if j < len(s) && s[j] == '.' {
		j++
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == k {
			return i
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
			return i
		}
	}
	c.out = append(c.out, s[i:j]...)
	c.ok = true
	return j
}

// str parses the string at src[i] and appends it in canonical form: the
// value as encoding/json decodes it (invalid UTF-8 and lone surrogates
// become U+FFFD), re-escaped with only '"', '\\' and control characters
// escaped. Credential fields inside a string (a tool's JSON arguments)
// are masked as secrets.ScrubFields masks them. It returns the index
// after the string and, for a key, whether the key is one the recorder
// masks (secrets.ScrubFields' pattern: 1 to 64 of [A-Za-z0-9_-]).
func (c *canonicalizer) str(i int, key bool) (int, bool) {
	s := c.src
	j := i + 1
	for ; j < len(s) && s[j] != '"'; j++ {
		if s[j] == '\\' {
			j++
		}
	}
	if j >= len(s) {
		return i, false
	}
	raw := s[i+1 : j]
	plain := bytes.IndexByte(raw, '\\') < 0
	secretKey := false
	if key && len(raw) >= 1 && len(raw) <= 64 && plain && isFieldName(raw) {
		secretKey = secrets.IsSecretField(string(raw))
	}
	if !plain && bytes.Contains(raw, []byte(`\"`)) {
		// Scrub the string with its quotes, as ScrubFields scrubs it
		// within the whole body (before it is parsed).
		q := secrets.ScrubFields(s[i : j+1])
		raw = q[1 : len(q)-1]
	}
	ascii := true
	for _, ch := range raw {
		if ch < 0x20 {
			return i, false
		}
		if ch >= utf8.RuneSelf {
			ascii = false
		}
	}
	c.out = append(c.out, '"')
	if plain && (ascii || utf8.Valid(raw)) {
		c.out = append(c.out, raw...)
	} else if !c.unescape(raw) {
		return i, false
	}
	c.out = append(c.out, '"')
	c.ok = true
	return j + 1, secretKey
}

// scrubbedString returns the end of the string at s[i] as
// secrets.ScrubFields reads a credential's value — any byte but '"' and
// '\\', or '\\' and any character but a newline — or -1.
func scrubbedString(s []byte, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			return j + 1
		case '\\':
			if j+1 >= len(s) || s[j+1] == '\n' {
				return -1
			}
			j++
		}
	}
	return -1
}

func isFieldName(b []byte) bool {
	for _, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return false
		}
	}
	return true
}

// unescape appends raw's decoded value, re-escaped canonically.
func (c *canonicalizer) unescape(raw []byte) bool {
	for k := 0; k < len(raw); {
		ch := raw[k]
		switch {
		case ch == '\\':
			if k+1 >= len(raw) {
				return false
			}
			switch e := raw[k+1]; e {
			case '"', '\\':
				c.out = append(c.out, '\\', e)
			case '/':
				c.out = append(c.out, '/')
			case 'b', 'f', 'n', 'r', 't':
				c.out = append(c.out, '\\', e)
			case 'u':
				r, ok := hex4(raw[k+2:])
				if !ok {
					return false
				}
				k += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(raw[min(k+2, len(raw)):]); ok && k+1 < len(raw) && raw[k] == '\\' && raw[k+1] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							c.appendRune(d)
							k += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				c.appendRune(r)
				continue
			default:
				return false
			}
			k += 2
		case ch < utf8.RuneSelf:
			c.appendRune(rune(ch))
			k++
		default:
			r, size := utf8.DecodeRune(raw[k:])
			c.appendRune(r) // RuneError for invalid bytes, as encoding/json decodes them
			k += size
		}
	}
	return true
}

// appendRune appends r, escaping '"', '\\' and control characters.
func (c *canonicalizer) appendRune(r rune) {
	switch {
	case r == '"' || r == '\\':
		c.out = append(c.out, '\\', byte(r))
	case r == '\n':
		c.out = append(c.out, '\\', 'n')
	case r == '\r':
		c.out = append(c.out, '\\', 'r')
	case r == '\t':
		c.out = append(c.out, '\\', 't')
	case r == '\b':
		c.out = append(c.out, '\\', 'b')
	case r == '\f':
		c.out = append(c.out, '\\', 'f')
	case r < 0x20:
		const hex = "0123456789abcdef"
		c.out = append(c.out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	default:
		c.out = utf8.AppendRune(c.out, r)
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, ch := range b[:4] {
		switch {
		case ch >= '0' && ch <= '9':
			ch -= '0'
		case ch >= 'a' && ch <= 'f':
			ch = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			ch = ch - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(ch)
	}
	return r, true
}

func (c *canonicalizer) array(i, depth int) int {
	if depth >= MaxKeyDepth {
		c.ok, c.declined = false, true
		return i
	}
	c.out = append(c.out, '[')
	j := skipSpace(c.src, i+1)
	if j < len(c.src) && c.src[j] == ']' {
		c.out = append(c.out, ']')
		c.ok = true
		return j + 1
	}
	for {
		j = c.value(j, depth+1)
		if !c.ok {
			return i
		}
		j = skipSpace(c.src, j)
		if j >= len(c.src) {
			c.ok = false
			return i
		}
		switch c.src[j] {
		case ',':
			c.out = append(c.out, ',')
			j = skipSpace(c.src, j+1)
		case ']':
			c.out = append(c.out, ']')
			c.ok = true
			return j + 1
		default:
			c.ok = false
			return i
		}
	}
}

// object writes the members sorted by their canonical key; a credential
// member's string value is masked.
func (c *canonicalizer) object(i, depth int) int {
	if depth >= MaxKeyDepth {
		c.ok, c.declined = false, true
		return i
	}
	start := len(c.out)
	c.out = append(c.out, '{')
	j := skipSpace(c.src, i+1)
	if j < len(c.src) && c.src[j] == '}' {
		c.out = append(c.out, '}')
		c.ok = true
		return j + 1
	}
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	for {
		if j >= len(c.src) || c.src[j] != '"' {
			c.ok = false
			return i
		}
		m := member{start: len(c.out)}
		var secret bool
		c.ok = false
		j, secret = c.str(j, true)
		if !c.ok {
			return i
		}
		m.keyEnd = len(c.out)
		j = skipSpace(c.src, j)
		if j >= len(c.src) || c.src[j] != ':' {
			c.ok = false
			return i
		}
		c.out = append(c.out, ':')
		j = skipSpace(c.src, j+1)
		if k := -1; secret && j < len(c.src) && c.src[j] == '"' {
			k = scrubbedString(c.src, j)
			if k < 0 {
				if j = c.value(j, depth+1); !c.ok {
					return i
				}
			} else {
				c.out = append(c.out, `"`+secrets.Placeholder+`"`...)
				j = k
			}
		} else if j = c.value(j, depth+1); !c.ok {
			return i
		}
		m.end = len(c.out)
		c.members = append(c.members, m)
		j = skipSpace(c.src, j)
		if j >= len(c.src) {
			c.ok = false
			return i
		}
		if c.src[j] == ',' {
			j = skipSpace(c.src, j+1)
			continue
		}
		if c.src[j] != '}' {
			c.ok = false
			return i
		}
		j++
		break
	}
	ms := c.members[base:]
	key := func(m member) []byte { return c.out[m.start:m.keyEnd] }
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(key(a), key(b)) })
	c.scratch = append(c.scratch[:0], c.out[start+1:]...)
	c.out = c.out[:start+1]
	off := start + 1 // members' offsets in out, now in scratch
	skey := func(m member) []byte { return c.scratch[m.start-off : m.keyEnd-off] }
	first := true
	for k, m := range ms {
		if k+1 < len(ms) && bytes.Equal(skey(m), skey(ms[k+1])) {
			continue // a duplicate key: the last value wins, as in encoding/json
		}
		if !first {
			c.out = append(c.out, ',')
		}
		first = false
		c.out = append(c.out, c.scratch[m.start-off:m.end-off]...)
	}
	c.out = append(c.out, '}')
	c.ok = true
	return j
}
