package emulator

import "unicode/utf8"

// chunks cuts s into pieces of about n bytes, never inside a UTF-8
// sequence: each piece is the longest run of whole runes that fits in n
// bytes, or one rune when a single rune is longer than n. An empty s has no
// pieces. Invalid bytes count as one-byte runes, so every byte of s lands
// in exactly one piece.
func chunks(s string, n int) []string {
	if n < 1 {
		n = 1
	}
	var out []string
	for len(s) > 0 {
		end := 0
		for end < len(s) {
			_, size := utf8.DecodeRuneInString(s[end:])
			if end > 0 && end+size > n {
				break
			}
			end += size
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// tokenPieces cuts s the way a model's tokens cut tool arguments: into
// alternating runs of word characters (letters, digits, '_', any
// non-ASCII rune) and of everything else, so the pieces vary in size and
// never split a word: `{"path": "README.md"}` becomes `{"`, `path`,
// `": "`, `README`, `.`, `md`, `"}`.
func tokenPieces(s string) []string {
	var out []string
	start, word := 0, false
	for i, r := range s {
		w := isWord(r)
		if i > start && w != word {
			out = append(out, s[start:i])
			start = i
		}
		if i == start {
			word = w
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func isWord(r rune) bool {
	return r == '_' || r >= utf8.RuneSelf || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// arguments returns a tool call's arguments in style: the JSON text, and
// the pieces a stream sends it in (chunk bytes each unless the style says
// otherwise).
func arguments(tc ToolCall, style ArgumentStyle, chunk int) (string, []string) {
	args := tc.args()
	if style.Spaced {
		args = string(pythonStyle([]byte(args)))
	}
	switch {
	case style.Whole:
		return args, []string{args}
	case style.Uneven:
		return args, tokenPieces(args)
	}
	return args, chunks(args, chunk)
}
