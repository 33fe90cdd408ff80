package openai

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// libraryEncoding is the named encoding as github.com/pkoukk/tiktoken-go
// builds it from the offline loader's ranks: the path metis counted with
// before bpe, and the reference its counts are held to.
var libraryEncoding = sync.OnceValue(func() func(string) *tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	var mu sync.Mutex
	loaded := map[string]*tiktoken.Tiktoken{}
	return func(name string) *tiktoken.Tiktoken {
		mu.Lock()
		defer mu.Unlock()
		if e, ok := loaded[name]; ok {
			return e
		}
		e, err := tiktoken.GetEncoding(name)
		if err != nil {
			panic(err)
		}
		loaded[name] = e
		return e
	}
})

// countCases are texts whose counts depend on each part of the split
// pattern and of the merging: contractions in either case, runs of
// digits, whitespace before a word and at the end, newlines, letters of
// other scripts and marks, emoji with modifiers, special-token text
// (counted as text), invalid UTF-8, and long pieces that are no token
// (merged from single bytes).
var countCases = []string{
	"",
	"tiktoken is great!",
	"I'm sure THEY'LL say we'd've done it; it's John's",
	"1234567890 3.14159 -42 1e10 0x1F",
	"  leading\n\n\ttrailing   \n",
	"héllo wörld — naïve café, Ελληνικά, русский, 你好世界, こんにちは, 한국어",
	"e\u0301 a\u0308\u0323 combining",
	"🙂👍🏽👨‍👩‍👧 flags 🇫🇷",
	"<|endoftext|> and <|endofprompt|><|fim_prefix|>",
	"\xff\xfe\xfd bad \xc3 utf-8 \xe2\x82",
	strings.Repeat("a", 200) + " " + strings.Repeat("xq", 150),
	"zzqxjvkwzzqxjvkw_thisisnotawordatall_QQQZZZ",
	`{"type":"function","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}`,
	"https://example.com/path/to?query=1&x=%20y#frag",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n",
	"\r\n\r\n  \r\n",
	"a/b/c//d\n/\n",
}

// TestCountMatchesTiktoken holds bpe's counts to tiktoken-go's
// EncodeOrdinary for both encodings: the cases above, every scenario
// file of the suite and each of its lines, and strings drawn at random
// from an alphabet of the classes the split pattern tells apart.
func TestCountMatchesTiktoken(t *testing.T) {
	texts := append([]string(nil), countCases...)
	files, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "*", "*.yaml"))
	if err != nil || len(files) < 100 {
		t.Fatalf("scenario files: %d (%v)", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(data))
		texts = append(texts, strings.Split(string(data), "\n")...)
	}
	alphabet := []string{"a", "Z", "q", "é", "Ü", "ß", "语", "ア", "ا", "\u0301", "0", "7", "٣", " ", "  ", "\t", "\n", "\r", "'", "'s", "'LL", ".", ",", "!", "/", "-", "_", "🙂", "🏽", "\xff", "<|endoftext|>"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, name := range []string{encodingO200K, encodingCL100K} {
		e := encoding(name)
		if e == nil {
			t.Fatalf("%s did not load", name)
		}
		lib := libraryEncoding()(name)
		total := 0
		for _, s := range texts {
			want := len(lib.EncodeOrdinary(s))
			if got := e.count(s); got != want {
				t.Errorf("%s: %.200q: %d tokens, tiktoken-go's %d", name, s, got, want)
			}
			total += want
		}
		if total < 100000 {
			t.Errorf("%s: %d tokens over the texts: too few to tell", name, total)
		}
	}
}

// FuzzCount holds bpe's count of any text to tiktoken-go's, for both
// encodings.
func FuzzCount(f *testing.F) {
	for _, s := range countCases {
		f.Add(s)
	}
	o200k, cl100k := encoding(encodingO200K), encoding(encodingCL100K)
	libO200K, libCL100K := libraryEncoding()(encodingO200K), libraryEncoding()(encodingCL100K)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := o200k.count(s), len(libO200K.EncodeOrdinary(s)); got != want {
			t.Errorf("o200k_base: %q: %d tokens, tiktoken-go's %d", s, got, want)
		}
		if got, want := cl100k.count(s), len(libCL100K.EncodeOrdinary(s)); got != want {
			t.Errorf("cl100k_base: %q: %d tokens, tiktoken-go's %d", s, got, want)
		}
	})
}

// BenchmarkLoadBPE loads o200k_base from its embedded ranks, as the
// first count of a process does.
func BenchmarkLoadBPE(b *testing.B) {
	for range b.N {
		if _, err := loadBPE(encodingO200K); err != nil {
			b.Fatal(err)
		}
	}
}
