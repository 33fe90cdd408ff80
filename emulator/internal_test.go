package emulator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChunks(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 4, nil},
		{"abc", 4, []string{"abc"}},
		{"abcdefgh", 4, []string{"abcd", "efgh"}},
		{"abcdefghi", 4, []string{"abcd", "efgh", "i"}},
		{"héllo", 2, []string{"h", "é", "ll", "o"}}, // é is 2 bytes
		{"a€b", 2, []string{"a", "€", "b"}},         // € is 3 bytes, longer than n
		{"x", 0, []string{"x"}},                     // n below 1 means 1
		{"a\xffb", 2, []string{"a\xff", "b"}},       // invalid byte is one rune
		{"日本語", 6, []string{"日本", "語"}},             // 3-byte runes
		{"🙂🙂", 5, []string{"🙂", "🙂"}},               // 4-byte runes
		{"abcdefghijklmnop", 12, []string{"abcdefghijkl", "mnop"}},
	}
	for _, tt := range tests {
		got := chunks(tt.s, tt.n)
		assert.Equal(t, tt.want, got, "chunks(%q, %d)", tt.s, tt.n)
		assert.Equal(t, tt.s, strings.Join(got, ""))
	}
}

func FuzzChunks(f *testing.F) {
	f.Add("Hello, world!", 12)
	f.Add("héllo wörld", 3)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%64 + 1
		if n < 1 {
			n += 64
		}
		got := chunks(s, n)
		require.Equal(t, s, strings.Join(got, ""))
		for _, c := range got {
			require.NotEmpty(t, c)
			if len(c) > n {
				require.Equal(t, 1, len([]rune(c)), "only a single rune may exceed n: %q", c)
			}
		}
	})
}

func TestGoogleStyle(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1,"b":[{"c":"x:y"}]}`, `{"a": 1,"b": [{"c": "x:y"}]}`},
		{`{"k\"ey:":"v\\","n":1}`, `{"k\"ey:": "v\\","n": 1}`},
		{`[]`, `[]`},
	}
	for _, tt := range tests {
		got := googleStyle([]byte(tt.in))
		assert.Equal(t, tt.want, string(got))
		assert.True(t, json.Valid(got))
	}
}

func TestSummaryParts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"plain", []string{"plain"}},
		{"**A**\n\nx\n\n**B**\n\ny", []string{"**A**\n\nx", "**B**\n\ny"}},
		{"x\n\nno heading", []string{"x\n\nno heading"}},
		{"\n\n**lead**", []string{"\n\n**lead**"}},
	}
	for _, tt := range tests {
		got := summaryParts(tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		assert.Equal(t, tt.in, strings.Join(got, "\n\n"))
	}
}

func TestObjectKeepsOrder(t *testing.T) {
	o := object{{"z", 1}, {"a", nil}, {"m", object{}}, {"h", "<&>"}}
	assert.Equal(t, `{"z":1,"a":null,"m":{},"h":"<&>"}`, string(marshal(o)))
}
