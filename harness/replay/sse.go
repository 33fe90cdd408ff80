package replay

// SplitEvents splits a text/event-stream body into its events, each
// keeping its own bytes up to and including the blank line that ends it,
// so that concatenating the result gives body back. Blank lines before an
// event stay with that event; trailing bytes with no blank line after them
// form a last, unterminated element. LF, CRLF and CR line endings are all
// recognised, as the SSE specification requires.
func SplitEvents(body []byte) [][]byte {
	var out [][]byte
	start := 0       // start of the current event
	lineStart := 0   // start of the current line
	content := false // the current event has a non-blank line
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\n' && c != '\r' {
			continue
		}
		end := i + 1
		if c == '\r' && end < len(body) && body[end] == '\n' {
			end++
		}
		blank := i == lineStart
		if !blank {
			content = true
		} else if content {
			out = append(out, body[start:end])
			start = end
			content = false
		}
		i = end - 1
		lineStart = end
	}
	if start < len(body) {
		out = append(out, body[start:])
	}
	return out
}
