// Package jsonindent indents JSON text as json.Indent does with no
// prefix and two spaces, in one pass over text known to be valid.
package jsonindent

import (
	"bytes"
	"slices"
)

// Append appends to dst the valid JSON src indented as json.Indent
// does with no prefix and two spaces: each element and member on a line
// of its own, ": " after a key, "{}" and "[]" for empty ones, whitespace
// outside strings dropped and the bytes inside them copied as they are;
// what follows the top-level value (encoding/json's newline) is copied
// as it is.
//
// It does what encoding/json's indentation does for valid input without
// its per-byte state machine, which was most of the time spent encoding
// the goldens and reports. Its caller hands it encoding/json's own
// output, so src is valid; FuzzAppend holds the two to the same bytes
// for any valid src. For invalid src the output is unspecified.
func Append(dst, src []byte) []byte { return AppendAt(dst, src, 0) }

// Size is the room to set aside for indenting n bytes of compact JSON:
// indentation about doubles it, and a buffer of this size mostly takes
// the whole output without growing step by step.
func Size(n int) int { return 2*n + n/4 + 64 }

// AppendAt is Append for a value that sits at the given depth of an
// enclosing document: its inner lines are indented by depth more levels,
// as they are when json.Indent indents the whole document. A document
// can so be indented a part at a time.
//
// When dst's spare capacity runs short of a line's indentation, AppendAt
// measures the whole output (Len) and grows dst once to hold it: the
// callers size dst for the usual shapes (Size), and a deeply nested
// document, whose indentation can be a hundred times its compact size,
// would otherwise regrow and copy it a quarter larger at a time.
func AppendAt(dst, src []byte, depth int) []byte {
	base := depth
	start := len(dst)
	sized := false // dst has been grown to the measured output
	open := false  // the last byte was '{' or '[': the newline waits for a non-empty body
	i := 0
	for i < len(src) {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		if open {
			open = false
			if c != '}' && c != ']' {
				depth++
				if !sized && cap(dst)-len(dst) <= 2*depth {
					dst, sized = slices.Grow(dst, start+Len(src, base)-len(dst)), true
				}
				dst = appendNewline(dst, depth)
			} else {
				// An empty object or array: "{}" or "[]".
				dst = append(dst, c)
				i++
				if depth == base {
					break
				}
				continue
			}
		}
		switch c {
		case '"':
			j := stringClose(src, i+1)
			dst = append(dst, src[i:j]...)
			i = j
		case '{', '[':
			open = true
			dst = append(dst, c)
			i++
			continue
		case ',':
			dst = append(dst, c)
			if !sized && cap(dst)-len(dst) <= 2*depth {
				dst, sized = slices.Grow(dst, start+Len(src, base)-len(dst)), true
			}
			dst = appendNewline(dst, depth)
			i++
			continue
		case ':':
			dst = append(dst, c, ' ')
			i++
			continue
		case '}', ']':
			depth--
			if !sized && cap(dst)-len(dst) <= 2*depth {
				dst, sized = slices.Grow(dst, start+Len(src, base)-len(dst)), true
			}
			dst = appendNewline(dst, depth)
			dst = append(dst, c)
			i++
		default:
			// A number or a literal: copied up to the next punctuation
			// or whitespace.
			j := i + 1
			for j < len(src) && !isJSONDelim(src[j]) {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j
		}
		if depth == base {
			break // the top-level value is complete
		}
	}
	return append(dst, src[i:]...)
}

// Len is the length of AppendAt(nil, src, depth), measured without
// writing it: the same walk over src, adding up what each byte becomes.
func Len(src []byte, depth int) int {
	base := depth
	open := false
	n, i := 0, 0
	for i < len(src) {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		if open {
			open = false
			if c != '}' && c != ']' {
				depth++
				n += 1 + 2*depth
			} else {
				n++
				i++
				if depth == base {
					break
				}
				continue
			}
		}
		switch c {
		case '"':
			j := stringClose(src, i+1)
			n += j - i
			i = j
		case '{', '[':
			open = true
			n++
			i++
			continue
		case ',':
			n += 2 + 2*depth
			i++
			continue
		case ':':
			n += 2
			i++
			continue
		case '}', ']':
			depth--
			n += 2 + 2*depth
			i++
		default:
			j := i + 1
			for j < len(src) && !isJSONDelim(src[j]) {
				j++
			}
			n += j - i
			i = j
		}
		if depth == base {
			break
		}
	}
	return n + len(src) - i
}

// stringClose returns the index just past the closing quote of the JSON
// string whose body starts at src[i], or len(src) when it is unclosed.
func stringClose(src []byte, i int) int {
	for i < len(src) {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src)
		}
		b := bytes.IndexByte(src[i:i+q], '\\')
		if b < 0 {
			return i + q + 1
		}
		i += b + 2 // a backslash and the byte it escapes
	}
	return len(src)
}

// isJSONDelim reports whether c ends a number or literal in JSON text.
func isJSONDelim(c byte) bool {
	switch c {
	case ',', ':', '}', ']', '{', '[', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// spaces is the indentation appendNewline copies from.
const spaces = "                                                                "

// appendNewline appends a newline and depth levels of two-space
// indentation.
func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for n := 2 * depth; n > 0; {
		k := min(n, len(spaces))
		dst = append(dst, spaces[:k]...)
		n -= k
	}
	return dst
}
