package secrets

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A Scrubber removes credentials from the bodies and URLs of one
// recording, reading each body as what it is:
//
//   - JSON (bodies, server-sent events, NDJSON, any text): the string
//     value of a member IsSecretField names (or every string value in its
//     array or object) becomes Placeholder; every other string is decoded and scrubbed as a
//     body of its own, so JSON inside a JSON string (a tool's arguments),
//     a URL or a base64-encoded JSON payload inside one are scrubbed too;
//   - application/x-www-form-urlencoded: the value of every field
//     IsSecretParam names, and the rest decoded and scrubbed;
//   - multipart/form-data: a part IsSecretParam names is replaced, every
//     other part is scrubbed by its own content type;
//   - AWS event streams (application/vnd.amazon.eventstream): each
//     frame's payload, the frame's lengths and checksums recomputed;
//   - URLs anywhere: user information, the value of every query (and
//     fragment) parameter IsSecretParam names, and a path segment holding
//     a key shape;
//   - gzip-compressed bodies: expanded, scrubbed, compressed again;
//   - everywhere, after decoding: every key shape Find knows but the
//     generic ones.
//
// It remembers the value of every credential it removes, and of every
// credential header it is told about (Header), and Replace removes those
// values wherever else they appear — in a response echoing them, in
// another interaction. A recording is scrubbed in two passes: every body,
// URL and header is seen once (to remember), then scrubbed and Replaced.
// A Scrubber is not safe for concurrent use.
type Scrubber struct {
	values map[string]bool
	order  []string // values, longest first once sorted
	sorted bool
}

// NewScrubber returns a Scrubber that already knows the given values
// (configured API keys).
func NewScrubber(known ...string) *Scrubber {
	s := &Scrubber{values: map[string]bool{}}
	for _, v := range known {
		s.remember(v)
	}
	return s
}

// maxDepth bounds how deeply nested encodings are followed.
const maxDepth = 8

// remember adds v to the values Replace removes, when it is long enough
// not to match by chance and is not already a placeholder.
func (s *Scrubber) remember(v string) {
	v = strings.TrimSpace(v)
	if len(v) < MinValueLen || s.values[v] || strings.Contains(v, Placeholder) {
		return
	}
	s.values[v] = true
	s.order = append(s.order, v)
	s.sorted = false
}

// Remember adds values to those Replace removes (values of MinValueLen
// bytes or more; shorter ones would match by chance).
func (s *Scrubber) Remember(values ...string) {
	for _, v := range values {
		s.remember(v)
	}
}

// Header remembers the credentials in a header that is dropped: when
// IsSecretHeader names it, its value, the value after an auth scheme
// (Bearer, Basic, …), a Basic value's user and password, the values of
// name=value pairs (SigV4's Credential and Signature), and cookies'
// values.
func (s *Scrubber) Header(name string, values []string) {
	if !IsSecretHeader(name) {
		return
	}
	for _, v := range values {
		s.remember(v)
		scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
		if ok {
			rest = strings.TrimSpace(rest)
			s.remember(rest)
			if strings.EqualFold(scheme, "basic") {
				if dec, err := base64.StdEncoding.DecodeString(rest); err == nil {
					user, pass, _ := strings.Cut(string(dec), ":")
					s.remember(string(dec))
					s.remember(user)
					s.remember(pass)
				}
			}
		}
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
			if _, val, ok := strings.Cut(part, "="); ok {
				s.remember(val)
				if first, _, ok := strings.Cut(val, "/"); ok {
					s.remember(first)
				}
			}
		}
	}
}

// Values returns the values Replace removes.
func (s *Scrubber) Values() []string { return slices.Clone(s.order) }

// Replace replaces every remembered value in data — as it is, JSON-escaped
// and percent-encoded — with Placeholder, longest first. It returns data
// itself when nothing changed.
func (s *Scrubber) Replace(data []byte) []byte {
	if len(s.order) == 0 {
		return data
	}
	if !s.sorted {
		slices.SortStableFunc(s.order, func(a, b string) int { return len(b) - len(a) })
		s.sorted = true
	}
	out := data
	for _, v := range s.order {
		for _, form := range encodings(v) {
			if bytes.Contains(out, []byte(form)) {
				out = bytes.ReplaceAll(out, []byte(form), []byte(Placeholder))
			}
		}
	}
	return out
}

// encodings are the forms v takes in a body or a URL.
func encodings(v string) []string {
	var forms []string
	// A value with JSON's syntax in it is replaced only encoded: as it is,
	// it could match across a document's structure and break it.
	if !strings.ContainsAny(v, "\"\\{}[]\n\r") {
		forms = append(forms, v)
	}
	add := func(f string) {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	if b, err := json.Marshal(v); err == nil {
		add(string(b[1 : len(b)-1]))
	}
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	return forms
}

// Body scrubs one request or response body, read as contentType says
// (or, when it says nothing useful, as the body looks), and Replaces the
// remembered values in it. It returns body itself when nothing changed.
func (s *Scrubber) Body(body []byte, contentType string) []byte {
	if len(body) == 0 {
		return body
	}
	return s.body(body, contentType, 0)
}

func (s *Scrubber) body(b []byte, contentType string, depth int) []byte {
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case depth > maxDepth:
		return s.Replace(b)
	case len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b:
		// A gzip-compressed body (a client that asked for gzip itself):
		// scrubbed expanded, compressed again when that changed it.
		plain, ok := gunzip(b)
		if !ok {
			return s.Replace(b)
		}
		out := s.body(plain, contentType, depth+1)
		if bytes.Equal(out, plain) {
			return b
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(out) // writing to memory does not fail
		_ = zw.Close()
		return buf.Bytes()
	case mt == "multipart/form-data" || strings.HasPrefix(mt, "multipart/"):
		if out, ok := s.multipart(b, params["boundary"], depth); ok {
			return out
		}
	case mt == "application/x-www-form-urlencoded":
		return s.Replace(s.form(b, depth))
	case mt == "application/vnd.amazon.eventstream":
		if out, ok := s.eventStream(b, depth); ok {
			return out
		}
	}
	if mt == "" || mt == "text/plain" || mt == "application/octet-stream" {
		if boundary, ok := sniffMultipart(b); ok {
			if out, ok := s.multipart(b, boundary, depth); ok {
				return out
			}
		}
		if looksForm(b) {
			return s.Replace(s.form(b, depth))
		}
		if out, ok := s.eventStream(b, depth); ok {
			return out
		}
	}
	return s.Replace(s.text(b, depth))
}

// formPair is a name=value pair of a form-encoded body or query.
var formPair = regexp.MustCompile(`^[A-Za-z0-9_.\-\[\]%*~]+=[^&\s]*$`)

// looksForm reports whether b reads as a form-encoded body.
func looksForm(b []byte) bool {
	if len(b) == 0 || len(b) > 1<<20 || !bytes.Contains(b, []byte("=")) {
		return false
	}
	for _, pair := range bytes.Split(b, []byte("&")) {
		if !formPair.Match(pair) {
			return false
		}
	}
	return true
}

// form scrubs a form-encoded body or query string, keeping its bytes
// where nothing changed.
func (s *Scrubber) form(b []byte, depth int) []byte {
	pairs := bytes.Split(b, []byte("&"))
	changed := false
	for i, pair := range pairs {
		rawName, rawValue, ok := bytes.Cut(pair, []byte("="))
		if !ok {
			continue
		}
		name, err := url.QueryUnescape(string(rawName))
		if err != nil {
			name = string(rawName)
		}
		value, err := url.QueryUnescape(string(rawValue))
		if err != nil {
			value = string(rawValue)
		}
		var scrubbed string
		if IsSecretParam(name) {
			if value == Placeholder || value == "" {
				continue
			}
			s.remember(value)
			scrubbed = Placeholder
		} else {
			scrubbed = string(s.text([]byte(value), depth+1))
			if scrubbed == value {
				continue
			}
		}
		pairs[i] = append(append(slices.Clone(rawName), '='), url.QueryEscape(scrubbed)...)
		changed = true
	}
	if !changed {
		return b
	}
	return bytes.Join(pairs, []byte("&"))
}

// sniffMultipart returns the boundary of a body that starts as a
// multipart body does ("--boundary" and a line end).
func sniffMultipart(b []byte) (string, bool) {
	if !bytes.HasPrefix(b, []byte("--")) {
		return "", false
	}
	line, _, ok := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !ok || len(line) < 3 || len(line) > 72 || bytes.ContainsAny(line, " \t\"") {
		return "", false
	}
	return string(line[2:]), true
}

// multipart scrubs each part of a multipart body; ok is false when b is
// not one.
func (s *Scrubber) multipart(b []byte, boundary string, depth int) ([]byte, bool) {
	if boundary == "" {
		return nil, false
	}
	delim := []byte("--" + boundary)
	pieces := bytes.Split(b, delim)
	if len(pieces) < 3 {
		return nil, false
	}
	changed := false
	// pieces[0] is the preamble and the last piece starts with "--".
	for i := 1; i < len(pieces)-1; i++ {
		p := pieces[i]
		sep := []byte("\r\n\r\n")
		end := bytes.Index(p, sep)
		if end < 0 {
			sep = []byte("\n\n")
			if end = bytes.Index(p, sep); end < 0 {
				continue
			}
		}
		head, content := p[:end+len(sep)], p[end+len(sep):]
		tail := []byte{}
		switch {
		case bytes.HasSuffix(content, []byte("\r\n")):
			content, tail = content[:len(content)-2], []byte("\r\n")
		case bytes.HasSuffix(content, []byte("\n")):
			content, tail = content[:len(content)-1], []byte("\n")
		}
		var name, ct string
		for _, line := range strings.Split(string(head), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "content-disposition":
				if _, ps, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil {
					name = ps["name"]
				}
			case "content-type":
				ct = strings.TrimSpace(v)
			}
		}
		var out []byte
		if IsSecretParam(name) {
			s.remember(string(content))
			out = []byte(Placeholder)
		} else {
			out = s.body(content, ct, depth+1)
		}
		if !bytes.Equal(out, content) {
			pieces[i] = slices.Concat(head, out, tail)
			changed = true
		}
	}
	if !changed {
		return b, true
	}
	return bytes.Join(pieces, delim), true
}

// text scrubs b as JSON-like text: quoted strings are read as JSON
// strings, a string followed by ':' is a member's name, and the text
// between strings is searched for URLs. Key shapes are replaced last.
func (s *Scrubber) text(b []byte, depth int) []byte {
	var out bytes.Buffer
	gapStart := 0         // b[gapStart:] is not yet written
	secretMember := false // the next string is a credential's value
	secretArray := -1     // the depth of a credential's array or object, or -1
	nesting := 0
	flushGap := func(end int) {
		out.Write(s.urls(b[gapStart:end], depth))
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '[', '{':
			if secretMember {
				secretArray = nesting
			}
			secretMember = false
			nesting++
			continue
		case ']', '}':
			nesting--
			if secretArray >= 0 && nesting <= secretArray {
				secretArray = -1
			}
			continue
		case '"':
		default:
			if secretMember && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ':' {
				secretMember = false
			}
			continue
		}
		end := stringEnd(b, i)
		if end < 0 {
			continue // a lone quote in plain text
		}
		flushGap(i)
		raw := b[i : end+1]
		j := end + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
			j++
		}
		isName := j < len(b) && b[j] == ':'
		switch {
		case isName:
			name, ok := decodeString(raw)
			secretMember = ok && IsSecretField(name)
			out.Write(raw)
		case secretMember || secretArray >= 0:
			secretMember = false
			if v, ok := decodeString(raw); ok && v != Placeholder {
				s.remember(v)
			}
			out.WriteString(`"` + Placeholder + `"`)
		default:
			out.Write(s.stringValue(raw, depth))
		}
		i = end
		gapStart = end + 1
	}
	flushGap(len(b))
	res := out.Bytes()
	if bytes.Equal(res, b) {
		res = b
	}
	return s.shapes(res)
}

// stringEnd returns the index of the quote closing the JSON string
// opening at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j
		case '\\':
			j++
		case '\n':
			return -1
		}
	}
	return -1
}

// decodeString decodes a quoted JSON string.
func decodeString(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), utf8.Valid(raw)
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// encodeString encodes v as a JSON string without HTML escaping.
func encodeString(v string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// base64JSON matches a string that is base64 of a JSON object ("{\"").
var base64JSON = regexp.MustCompile(`^eyJ[A-Za-z0-9+/_\-]*={0,2}$`)

// stringValue scrubs the contents of a quoted string that is not a
// credential's value: decoded, scrubbed as a body of its own (JSON,
// URLs, a form, base64-encoded JSON) and re-encoded when that changed
// anything.
func (s *Scrubber) stringValue(raw []byte, depth int) []byte {
	if depth >= maxDepth || len(raw) < 4 {
		return raw
	}
	if bytes.IndexByte(raw, '\\') < 0 && !bytes.Contains(raw, []byte("://")) && bytes.IndexByte(raw, '=') < 0 && !bytes.HasPrefix(raw, []byte(`"eyJ`)) {
		return raw // nothing to decode: the shapes in it are text's
	}
	v, ok := decodeString(raw)
	if !ok {
		return raw
	}
	var scrubbed []byte
	switch {
	case base64JSON.MatchString(v):
		scrubbed = []byte(v)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			dec, err := enc.DecodeString(v)
			if err != nil {
				continue
			}
			if out := s.body(dec, "", depth+1); !bytes.Equal(out, dec) {
				scrubbed = []byte(enc.EncodeToString(out))
			}
			break
		}
	case looksForm([]byte(v)):
		scrubbed = s.form([]byte(v), depth+1)
	default:
		scrubbed = s.text([]byte(v), depth+1)
	}
	if string(scrubbed) == v {
		return raw
	}
	return encodeString(string(scrubbed))
}

// urlPattern matches a URL with a scheme, up to a character no URL holds
// unescaped.
var urlPattern = regexp.MustCompile(`(?i)[a-z][a-z0-9+.\-]{1,15}://[^\s"'<>\\` + "`" + `]+`)

// urls scrubs every URL in b (see URL).
func (s *Scrubber) urls(b []byte, depth int) []byte {
	if !bytes.Contains(b, []byte("://")) {
		return b
	}
	return urlPattern.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(s.url(string(m), depth)) })
}

// URL scrubs one URL: its user information, the value of every query and
// fragment parameter IsSecretParam names (the name kept, the value
// Placeholder; other values are scrubbed as bodies), and the key shapes
// in its path segments. It returns raw itself when nothing changed, and
// when raw is not a URL.
func (s *Scrubber) URL(raw string) string { return s.url(raw, 0) }

func (s *Scrubber) url(raw string, depth int) string {
	u, err := url.Parse(raw)
	if err != nil || depth > maxDepth {
		return string(s.shapes([]byte(raw)))
	}
	changed := false
	if u.User != nil {
		s.remember(u.User.Username())
		if p, ok := u.User.Password(); ok {
			s.remember(p)
			u.User = url.UserPassword(Placeholder, Placeholder)
		} else {
			u.User = url.User(Placeholder)
		}
		changed = true
	}
	if u.RawQuery != "" {
		if q := s.form([]byte(u.RawQuery), depth); string(q) != u.RawQuery {
			u.RawQuery, changed = string(q), true
		}
	}
	if frag := u.EscapedFragment(); strings.Contains(frag, "=") {
		if f := s.form([]byte(frag), depth); string(f) != frag {
			if dec, err := url.PathUnescape(string(f)); err == nil {
				u.Fragment, u.RawFragment, changed = dec, string(f), true
			}
		}
	}
	segs := strings.Split(u.EscapedPath(), "/")
	pathChanged := false
	for i, seg := range segs {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			dec = seg
		}
		if out := s.shapes([]byte(dec)); string(out) != dec {
			segs[i], pathChanged = url.PathEscape(string(out)), true
		}
	}
	if pathChanged {
		p := strings.Join(segs, "/")
		if dec, err := url.PathUnescape(p); err == nil {
			u.Path, u.RawPath, changed = dec, p, true
		}
	}
	if !changed {
		return string(s.shapes([]byte(raw)))
	}
	return string(s.shapes([]byte(u.String())))
}

// shapes replaces every key shape Find knows (but the generic,
// entropy-judged ones) with Placeholder, remembering each.
func (s *Scrubber) shapes(b []byte) []byte {
	ms := findShapes(b, false)
	if len(ms) == 0 {
		return b
	}
	var out bytes.Buffer
	last := 0
	for _, m := range ms {
		s.remember(string(b[m.Start:m.End]))
		out.Write(b[last:m.Start])
		out.WriteString(Placeholder)
		last = m.End
	}
	out.Write(b[last:])
	return out.Bytes()
}
