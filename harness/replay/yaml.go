package replay

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// parseCassette reads a cassette in the exact layout go-vcr v4 (and the
// recorder and importer, which use its YAML library) writes — block
// mappings and sequences indented by four, the request and response
// fields, plain, quoted and literal scalars on one line each — about ten
// times faster than the YAML library. Anything outside that layout
// (comments after a value, flow collections, multi-line quoted scalars,
// anchors, tags, unknown fields, values that would not be strings, ...)
// returns ok false, and the caller loads the file with go-vcr instead, so
// the result is always what go-vcr would load: a differential test over
// every cassette in the repository and a fuzz target hold it to that.
func parseCassette(name string, data []byte) (c *cassette.Cassette, ok bool) {
	p := yamlParser{data: data}
	version, interactions, ok := p.document()
	if !ok || p.bad || version != cassette.CassetteFormatVersion {
		return nil, false
	}
	c = cassette.New(name)
	c.IsNew = false
	c.Interactions = interactions
	return c, true
}

// yamlParser reads data line by line.
type yamlParser struct {
	data []byte
	pos  int  // start of the next line
	bad  bool // a line outside the layout: leave the file to the library
}

// line is one line: its indentation and its text after the indentation,
// without the line break.
type line struct {
	indent int
	text   []byte
	end    int // where the next line starts
}

// peek returns the next line that is not blank, without consuming it; ok
// is false at the end, or (with p.bad set) at a line outside the layout.
func (p *yamlParser) peek() (line, bool) {
	for pos := p.pos; pos < len(p.data); {
		end := bytes.IndexByte(p.data[pos:], '\n')
		next := len(p.data)
		if end < 0 {
			end = len(p.data)
		} else {
			end += pos
			next = end + 1
		}
		raw := p.data[pos:end]
		if bytes.IndexByte(raw, '\r') >= 0 || bytes.IndexByte(raw, '\t') >= 0 {
			p.bad = true
			return line{}, false
		}
		indent := 0
		for indent < len(raw) && raw[indent] == ' ' {
			indent++
		}
		if indent == len(raw) {
			pos = next
			p.pos = next // a blank line between entries
			continue
		}
		return line{indent: indent, text: raw[indent:], end: next}, true
	}
	return line{}, false
}

func (p *yamlParser) eof() bool {
	_, ok := p.peek()
	return !ok
}

// document reads the leading comments, an optional "---", "version" and
// "interactions".
func (p *yamlParser) document() (version int, out []*cassette.Interaction, ok bool) {
	for {
		l, ok := p.peek()
		if !ok {
			return 0, nil, false
		}
		if l.indent == 0 && l.text[0] == '#' {
			if !printable(l.text) {
				return 0, nil, false
			}
			p.pos = l.end
			continue
		}
		if l.indent == 0 && string(l.text) == "---" {
			p.pos = l.end
		}
		break
	}
	seen := map[string]bool{}
	for !p.eof() {
		l, ok := p.peek()
		if !ok || l.indent != 0 {
			return 0, nil, false
		}
		key, rest, ok := splitKey(l.text)
		if !ok || seen[key] {
			return 0, nil, false
		}
		seen[key] = true
		p.pos = l.end
		switch key {
		case "version":
			if version, ok = plainInt(rest); !ok {
				return 0, nil, false
			}
		case "interactions":
			if len(rest) != 0 {
				return 0, nil, false
			}
			if out, ok = p.interactions(); !ok {
				return 0, nil, false
			}
		default:
			return 0, nil, false
		}
	}
	if !seen["version"] || !seen["interactions"] {
		return 0, nil, false
	}
	return version, out, true
}

// splitKey splits "key: value" or "key:" into the key and the value text.
func splitKey(text []byte) (key string, rest []byte, ok bool) {
	i := bytes.IndexByte(text, ':')
	if i <= 0 {
		return "", nil, false
	}
	for _, c := range text[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return "", nil, false
		}
	}
	switch {
	case i+1 == len(text):
		return string(text[:i]), nil, true
	case text[i+1] == ' ':
		rest = text[i+2:]
		if len(rest) == 0 || rest[0] == ' ' {
			return "", nil, false
		}
		return string(text[:i]), rest, true
	}
	return "", nil, false
}

// interactions reads the "    - id: N" items.
func (p *yamlParser) interactions() ([]*cassette.Interaction, bool) {
	var out []*cassette.Interaction
	for {
		l, ok := p.peek()
		if !ok || l.indent == 0 {
			return out, len(out) > 0
		}
		if l.indent != 4 || !bytes.HasPrefix(l.text, []byte("- ")) {
			return nil, false
		}
		in := &cassette.Interaction{}
		// The item's first field sits after "- ", at indent 6.
		first := line{indent: 6, text: l.text[2:], end: l.end}
		seen := map[string]bool{}
		for {
			key, rest, ok := splitKey(first.text)
			if !ok || seen[key] {
				return nil, false
			}
			seen[key] = true
			p.pos = first.end
			switch key {
			case "id":
				if in.ID, ok = plainInt(rest); !ok {
					return nil, false
				}
			case "request":
				if len(rest) != 0 || !p.request(&in.Request) {
					return nil, false
				}
			case "response":
				if len(rest) != 0 || !p.response(&in.Response) {
					return nil, false
				}
			default:
				return nil, false
			}
			next, ok := p.peek()
			if !ok || next.indent != 6 {
				break
			}
			first = next
		}
		out = append(out, in)
	}
}

// fields reads the mapping at indent 8 under "request:" or "response:",
// calling set for each key with its value text.
func (p *yamlParser) fields(set func(key string, rest []byte) bool) bool {
	seen := map[string]bool{}
	for {
		l, ok := p.peek()
		if !ok || l.indent < 8 {
			return true
		}
		if l.indent != 8 {
			return false
		}
		key, rest, ok := splitKey(l.text)
		if !ok || seen[key] {
			return false
		}
		seen[key] = true
		p.pos = l.end
		if !set(key, rest) {
			return false
		}
	}
}

func (p *yamlParser) request(r *cassette.Request) bool {
	return p.fields(func(key string, rest []byte) bool {
		var ok bool
		switch key {
		case "proto":
			r.Proto, ok = p.str(rest, 8)
		case "proto_major":
			r.ProtoMajor, ok = plainInt(rest)
		case "proto_minor":
			r.ProtoMinor, ok = plainInt(rest)
		case "content_length":
			var n int
			n, ok = plainInt(rest)
			r.ContentLength = int64(n)
		case "transfer_encoding":
			r.TransferEncoding, ok = p.list(rest, 12)
		case "trailer":
			r.Trailer, ok = p.header(rest)
		case "host":
			r.Host, ok = p.str(rest, 8)
		case "remote_addr":
			r.RemoteAddr, ok = p.str(rest, 8)
		case "request_uri":
			r.RequestURI, ok = p.str(rest, 8)
		case "body":
			r.Body, ok = p.str(rest, 8)
		case "form":
			var h http.Header
			h, ok = p.header(rest)
			r.Form = url.Values(h)
		case "headers":
			r.Headers, ok = p.header(rest)
		case "url":
			r.URL, ok = p.str(rest, 8)
		case "method":
			r.Method, ok = p.str(rest, 8)
		}
		return ok
	})
}

func (p *yamlParser) response(r *cassette.Response) bool {
	return p.fields(func(key string, rest []byte) bool {
		var ok bool
		switch key {
		case "proto":
			r.Proto, ok = p.str(rest, 8)
		case "proto_major":
			r.ProtoMajor, ok = plainInt(rest)
		case "proto_minor":
			r.ProtoMinor, ok = plainInt(rest)
		case "transfer_encoding":
			r.TransferEncoding, ok = p.list(rest, 12)
		case "trailer":
			r.Trailer, ok = p.header(rest)
		case "content_length":
			var n int
			n, ok = plainInt(rest)
			r.ContentLength = int64(n)
		case "uncompressed":
			switch string(rest) {
			case "true":
				r.Uncompressed, ok = true, true
			case "false":
				ok = true
			}
		case "body":
			r.Body, ok = p.str(rest, 8)
		case "headers":
			r.Headers, ok = p.header(rest)
		case "status":
			r.Status, ok = p.str(rest, 8)
		case "code":
			r.Code, ok = plainInt(rest)
		case "duration":
			var d time.Duration
			d, ok = p.duration(rest)
			r.Duration = d
		}
		return ok
	})
}

// header reads a mapping at indent 12 of names to lists at indent 16.
func (p *yamlParser) header(rest []byte) (http.Header, bool) {
	if len(rest) != 0 {
		return nil, false
	}
	h := http.Header{}
	for {
		l, ok := p.peek()
		if !ok || l.indent < 12 {
			return h, len(h) > 0
		}
		if l.indent != 12 {
			return nil, false
		}
		key, rest, ok := splitKey(l.text)
		if !ok {
			return nil, false
		}
		if _, dup := h[key]; dup {
			return nil, false
		}
		p.pos = l.end
		vs, ok := p.list(rest, 16)
		if !ok {
			return nil, false
		}
		h[key] = vs
	}
}

// list reads a sequence of string scalars at indent.
func (p *yamlParser) list(rest []byte, indent int) ([]string, bool) {
	if len(rest) != 0 {
		return nil, false
	}
	var out []string
	for {
		l, ok := p.peek()
		if !ok || l.indent < indent {
			return out, len(out) > 0
		}
		if l.indent != indent || !bytes.HasPrefix(l.text, []byte("- ")) {
			return nil, false
		}
		p.pos = l.end
		s, ok := p.str(l.text[2:], indent)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
}

// str reads a string scalar whose text starts at v, on a line indented by
// indent (a literal block's lines are deeper).
func (p *yamlParser) str(v []byte, indent int) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		return doubleQuoted(v)
	case '\'':
		return singleQuoted(v)
	case '|':
		return p.literal(v, indent)
	case '!':
		// A body that is not UTF-8 (Bedrock's binary event stream), which
		// the YAML library writes as base64 in a literal block.
		rest, ok := bytes.CutPrefix(v, []byte("!!binary "))
		if !ok {
			return "", false
		}
		text, ok := p.literal(bytes.TrimSpace(rest), indent)
		if !ok {
			return "", false
		}
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	if !plainString(v) {
		return "", false
	}
	return string(v), true
}

// plainString reports whether v is a plain scalar that the YAML library
// decodes into a string as written: it starts with a letter, a digit or
// '/', has no ": " or " #" and no trailing space or colon, and is not a
// null or a boolean.
func plainString(v []byte) bool {
	if !(v[0] >= 'a' && v[0] <= 'z' || v[0] >= 'A' && v[0] <= 'Z' || v[0] >= '0' && v[0] <= '9' || v[0] == '/') {
		return false
	}
	if bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) || v[len(v)-1] == ' ' || v[len(v)-1] == ':' || !printable(v) {
		return false
	}
	switch strings.ToLower(string(v)) {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// plainInt reads a decimal integer written plainly.
func plainInt(v []byte) (int, bool) {
	s := v
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// duration reads a time.Duration written as time.Duration.String writes
// it (the YAML library parses a string into a Duration that way).
func (p *yamlParser) duration(v []byte) (time.Duration, bool) {
	if len(v) == 0 || !(v[0] >= '0' && v[0] <= '9') || bytes.ContainsAny(v, " #:") {
		return 0, false
	}
	if _, isInt := plainInt(v); isInt {
		return 0, false // a bare number decodes as nanoseconds: left to the library
	}
	d, err := time.ParseDuration(string(v))
	return d, err == nil
}

// singleQuoted reads a one-line single-quoted scalar.
func singleQuoted(v []byte) (string, bool) {
	var sb strings.Builder
	for i := 1; i < len(v); i++ {
		if v[i] != '\'' {
			sb.WriteByte(v[i])
			continue
		}
		if i+1 < len(v) && v[i+1] == '\'' {
			sb.WriteByte('\'')
			i++
			continue
		}
		if i+1 != len(v) {
			return "", false // something after the closing quote
		}
		return sb.String(), printable(v)
	}
	return "", false // the scalar goes on to the next line
}

// doubleQuoted reads a one-line double-quoted scalar.
func doubleQuoted(v []byte) (string, bool) {
	end := -1
	for i := 1; i < len(v); i++ {
		if v[i] == '\\' {
			i++
			continue
		}
		if v[i] == '"' {
			end = i
			break
		}
	}
	if end != len(v)-1 {
		return "", false
	}
	raw := v[1:end]
	if !printable(raw) {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '0':
			out = append(out, 0)
		case 'a':
			out = append(out, '\a')
		case 'b':
			out = append(out, '\b')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'v':
			out = append(out, '\v')
		case 'f':
			out = append(out, '\f')
		case 'r':
			out = append(out, '\r')
		case 'e':
			out = append(out, 0x1b)
		case ' ', '"', '/', '\\':
			out = append(out, raw[i])
		case 'N':
			out = utf8.AppendRune(out, '\u0085')
		case '_':
			out = utf8.AppendRune(out, '\u00a0')
		case 'L':
			out = utf8.AppendRune(out, '\u2028')
		case 'P':
			out = utf8.AppendRune(out, '\u2029')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[raw[i]]
			if i+1+n > len(raw) {
				return "", false
			}
			r, err := strconv.ParseUint(string(raw[i+1:i+1+n]), 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			i += n
		default:
			return "", false
		}
	}
	return string(out), true
}

// literal reads a literal block scalar ("|", "|-" or "|+") whose lines
// are indented deeper than indent.
func (p *yamlParser) literal(v []byte, indent int) (string, bool) {
	var chomp byte
	switch string(v) {
	case "|":
	case "|-":
		chomp = '-'
	case "|+":
		chomp = '+'
	default:
		return "", false
	}
	// Two passes: find the block's lines and size, then copy them once.
	var sb strings.Builder
	size, pos, pending, ok := p.literalLines(indent, nil)
	if !ok {
		return "", false
	}
	sb.Grow(size)
	p.literalLines(indent, &sb)
	p.pos = pos
	s := sb.String()
	switch chomp {
	case '-':
		s = strings.TrimRight(s, "\n")
	case '+':
		s += strings.Repeat("\n", pending)
	}
	return s, true
}

// literalLines walks the lines of a literal block whose parent is at
// indent, writing them to sb when it is not nil. It returns the size of
// the content (trailing empty lines left out), where the block ends, how
// many empty lines end it, and false for lines outside the layout.
func (p *yamlParser) literalLines(indent int, sb *strings.Builder) (size, pos, pending int, ok bool) {
	blockInd := -1
	pos = p.pos
	for pos < len(p.data) {
		end := bytes.IndexByte(p.data[pos:], '\n')
		if end < 0 {
			return 0, 0, 0, false // a last line with no line break
		}
		end += pos
		next := end + 1
		raw := p.data[pos:end]
		n := 0
		for n < len(raw) && raw[n] == ' ' {
			n++
		}
		if n == len(raw) { // an empty line
			if blockInd < 0 && n > 0 || blockInd >= 0 && n > blockInd {
				return 0, 0, 0, false // spaces the library may read otherwise
			}
			pending++
			pos = next
			continue
		}
		if blockInd < 0 {
			if n <= indent || pending > 0 {
				return 0, 0, 0, false
			}
			blockInd = n
		}
		if n < blockInd {
			break
		}
		if raw[n] == '\t' || !printable(raw) {
			return 0, 0, 0, false // a tab where the library reads indentation, or a character it refuses
		}
		size += pending + len(raw) - blockInd + 1
		if sb != nil {
			for ; pending > 0; pending-- {
				sb.WriteByte('\n')
			}
			sb.Write(raw[blockInd:])
			sb.WriteByte('\n')
		}
		pending = 0
		pos = next
	}
	return size, pos, pending, blockInd >= 0
}

// printable reports whether b is UTF-8 holding only characters YAML
// allows in a file: tab and printable characters (no other C0 or C1
// control, DEL, surrogate or non-character). Line breaks are not in b.
func printable(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || r < 0xA0 && r != 0x85 || r >= 0xD800 && r <= 0xDFFF || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	return true
}
