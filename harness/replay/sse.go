package replay

import (
	"bytes"
	"strings"
)

// SplitEvents splits a text/event-stream body into its events, each
// keeping its own bytes up to and including the blank line that ends it,
// so that concatenating the result gives body back. Blank lines before an
// event stay with that event; trailing bytes with no blank line after them
// form a last, unterminated element. LF, CRLF and CR line endings are all
// recognised, as the SSE specification requires.
func SplitEvents(body []byte) [][]byte {
	var out [][]byte
	for start := 0; start < len(body); {
		end := nextEvent(body, start)
		out = append(out, body[start:end])
		start = end
	}
	return out
}

// nextEvent returns the end of the event that starts at body[start]: just
// after the blank line that follows its first non-blank line, or
// len(body). It finds line ends with vectorised byte searches.
func nextEvent[T ~string | ~[]byte](body T, start int) int {
	lineStart := start
	content := false // the event has a non-blank line
	for i := start; i < len(body); {
		n := indexEOL(body[i:])
		if n < 0 {
			break
		}
		i += n
		end := i + 1
		if body[i] == '\r' && end < len(body) && body[end] == '\n' {
			end++
		}
		if i != lineStart {
			content = true
		} else if content {
			return end
		}
		i, lineStart = end, end
	}
	return len(body)
}

// indexEOL returns the index of the first '\n' or '\r' in b, or -1.
func indexEOL[T ~string | ~[]byte](b T) int {
	n := indexByte(b, '\n')
	if n < 0 {
		return indexByte(b, '\r')
	}
	if r := indexByte(b[:n], '\r'); r >= 0 {
		return r
	}
	return n
}

func indexByte[T ~string | ~[]byte](b T, c byte) int {
	switch v := any(b).(type) {
	case string:
		return strings.IndexByte(v, c)
	case []byte:
		return bytes.IndexByte(v, c)
	}
	for i := 0; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}
