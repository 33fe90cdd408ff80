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
