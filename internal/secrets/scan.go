package secrets

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A Finding is a credential Scan found.
type Finding struct {
	// Line is the line of the scanned data, from 1, holding the secret or
	// the encoded text (a base64 block, an escaped string) it was
	// decoded from.
	Line int
	// Kind says what it is: a configured key or one of Shapes' kinds.
	Kind string
	// Secret is the secret as found, decoded.
	Secret string
}

// ConfiguredKey is the Kind of a Finding of one of the keys given to Scan.
const ConfiguredKey = "a configured API key"

// Scan finds credentials in data — the given keys (those of at least
// MinValueLen bytes) and every shape Find knows — in the raw bytes and in
// every decoded view of them, so that no encoding hides one: each line
// with its backslash escapes (JSON, YAML: \n, \", \u0022, …), percent
// escapes (%22, %0A) and HTML entities decoded, repeatedly, so that
// nested encodings unfold; YAML !!binary blocks and base64-encoded JSON
// (AWS event-stream payloads, whose frames carry their payloads
// as they are) decoded, and a gzip-compressed binary block expanded.
// Findings are in order of line, each secret once per line.
func Scan(data []byte, keys ...string) []Finding {
	sc := &scanner{keys: keys, seen: map[string]bool{}}
	sc.scan(data, 1, false, 0)
	slices.SortStableFunc(sc.out, func(a, b Finding) int { return a.Line - b.Line })
	return sc.out
}

type scanner struct {
	keys []string
	seen map[string]bool
	out  []Finding
}

func (sc *scanner) add(line int, kind, secret string) {
	k := strconv.Itoa(line) + "\x00" + secret
	if sc.seen[k] {
		return
	}
	sc.seen[k] = true
	sc.out = append(sc.out, Finding{Line: line, Kind: kind, Secret: secret})
}

// scan scans data whose first line is line; with fixed, every finding is
// on that line (data was decoded from it).
func (sc *scanner) scan(data []byte, line int, fixed bool, depth int) {
	lineAt := func(off int) int {
		if fixed {
			return line
		}
		return line + bytes.Count(data[:off], []byte("\n"))
	}
	sc.flat(data, lineAt, depth)
	if depth > 3 {
		return
	}
	n := line
	rest := data
	for len(rest) > 0 {
		ln, tail, _ := bytes.Cut(rest, []byte("\n"))
		at := n
		if fixed {
			at = line
		}
		if bytes.ContainsAny(ln, `\%&`) {
			v := ln
			for range 4 {
				d := decodeEscapes(v)
				if bytes.Equal(d, v) {
					break
				}
				v = d
				sc.flat(v, func(int) int { return at }, depth)
			}
		}
		if bin, ok := binaryBlock(ln, tail); ok {
			if plain, ok := gunzip(bin); ok {
				bin = plain
			}
			sc.scan(bin, at, true, depth+1)
		}
		rest = tail
		n++
	}
}

// flat scans data as it is: the keys, the shapes, base64-encoded JSON and
// AWS event-stream frames in it.
func (sc *scanner) flat(data []byte, lineAt func(off int) int, depth int) {
	for _, k := range sc.keys {
		if len(k) < MinValueLen {
			continue
		}
		for off := 0; ; {
			i := bytes.Index(data[off:], []byte(k))
			if i < 0 {
				break
			}
			sc.add(lineAt(off+i), ConfiguredKey, k)
			off += i + len(k)
		}
	}
	for _, m := range Find(data) {
		sc.add(lineAt(m.Start), m.Kind, string(data[m.Start:m.End]))
	}
	if depth > 3 {
		return
	}
	for _, loc := range base64Run.FindAllIndex(data, -1) {
		if dec, ok := decodeBase64(data[loc[0]:loc[1]]); ok {
			sc.scan(dec, lineAt(loc[0]), true, depth+1)
		}
	}
}

// base64Run matches base64 that encodes a JSON object ("{\"…").
var base64Run = regexp.MustCompile(`eyJ[A-Za-z0-9+/_\-]{12,}={0,2}`)

// decodeBase64 decodes standard or URL-safe base64, padded or not, to
// valid UTF-8 text.
func decodeBase64(b []byte) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if dec, err := enc.DecodeString(string(b)); err == nil {
			return dec, utf8.Valid(dec)
		}
	}
	return nil, false
}

// maxGunzip bounds what a gzip-compressed body in a scanned file is
// expanded to.
const maxGunzip = 64 << 20

// gunzip returns b decompressed when it is gzip data; ok is false, and
// b is returned, when it is not.
func gunzip(b []byte) (_ []byte, ok bool) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b, false
	}
	plain, err := io.ReadAll(io.LimitReader(zr, maxGunzip))
	if err != nil && len(plain) == 0 {
		return b, false
	}
	return plain, true
}

// binaryBlock decodes the YAML !!binary value that line starts: inline
// or a block of the more-indented lines of rest.
func binaryBlock(line, rest []byte) ([]byte, bool) {
	i := bytes.Index(line, []byte("!!binary"))
	if i < 0 {
		return nil, false
	}
	inline := bytes.Trim(bytes.TrimSpace(line[i+len("!!binary"):]), `|-+>"'`)
	var b64 []byte
	if len(bytes.TrimSpace(inline)) > 0 {
		b64 = bytes.TrimSpace(inline)
	} else {
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		for len(rest) > 0 {
			ln, tail, _ := bytes.Cut(rest, []byte("\n"))
			t := bytes.TrimLeft(ln, " ")
			if len(bytes.TrimSpace(ln)) > 0 && len(ln)-len(t) <= indent {
				break
			}
			b64 = append(b64, bytes.TrimSpace(ln)...)
			rest = tail
		}
	}
	dec, err := base64.StdEncoding.DecodeString(string(b64))
	return dec, err == nil && len(dec) > 0
}

// htmlEntities are the entities decodeEscapes decodes.
var htmlEntities = [][2]string{{"&quot;", `"`}, {"&#34;", `"`}, {"&#39;", "'"}, {"&#x27;", "'"}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}}

// decodeEscapes undoes one level of backslash escapes (\n \r \t \b \f
// \uXXXX \xXX and \ before any other character), percent escapes and
// HTML entities, leniently: what is not a valid escape stays as it is.
func decodeEscapes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b):
			n := b[i+1]
			switch n {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b', 'f':
				out = append(out, ' ')
			case 'u':
				if i+6 <= len(b) && isHex(b[i+2:i+6]) {
					r, _ := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
					out = utf8.AppendRune(out, rune(r))
					i += 5
					continue
				}
				out = append(out, 'u')
			case 'x':
				if i+4 <= len(b) && isHex(b[i+2:i+4]) {
					v, _ := strconv.ParseUint(string(b[i+2:i+4]), 16, 8)
					out = append(out, byte(v))
					i += 3
					continue
				}
				out = append(out, 'x')
			default:
				out = append(out, n)
			}
			i++
		case c == '%' && i+2 < len(b) && isHex(b[i+1:i+3]):
			v, _ := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
			out = append(out, byte(v))
			i += 2
		case c == '&':
			done := false
			for _, e := range htmlEntities {
				if bytes.HasPrefix(b[i:], []byte(e[0])) {
					out = append(out, e[1]...)
					i += len(e[0]) - 1
					done = true
					break
				}
			}
			if !done {
				out = append(out, c)
			}
		default:
			out = append(out, c)
		}
	}
	return out
}
