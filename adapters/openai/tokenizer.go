package openai

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// The BPE encodings OpenAI's models use, by tiktoken's names. Their data
// is embedded by github.com/pkoukk/tiktoken-go-loader (MIT; the ranks
// files of OpenAI's tiktoken, MIT) and read on first use: nothing is
// downloaded.
const (
	encodingO200K  = "o200k_base"  // gpt-4o, gpt-4.1, gpt-5, o1/o3/o4, gpt-oss
	encodingCL100K = "cl100k_base" // gpt-4, gpt-3.5
)

// encodingFor returns the encoding of a model's wire name, or "" when
// the model's tokenizer is unknown.
func encodingFor(name string) string {
	name = strings.ToLower(name)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:] // "openai/gpt-oss-120b" on a router
	}
	name = strings.TrimPrefix(name, "openai.") // Bedrock's "openai.gpt-oss-…"
	switch {
	case strings.HasPrefix(name, "gpt-4o"), strings.HasPrefix(name, "gpt-4.1"), strings.HasPrefix(name, "gpt-4.5"),
		strings.HasPrefix(name, "gpt-5"), strings.HasPrefix(name, "o1"), strings.HasPrefix(name, "o3"),
		strings.HasPrefix(name, "o4"), strings.HasPrefix(name, "gpt-oss"), strings.HasPrefix(name, "chatgpt-4o"):
		return encodingO200K
	case strings.HasPrefix(name, "gpt-4"), strings.HasPrefix(name, "gpt-3.5"):
		return encodingCL100K
	}
	return ""
}

var (
	encodings sync.Map // name → func() (*bpe, error), each loaded once
	// loadEncoding builds an encoding from its embedded ranks, once per
	// process. A variable so that tests can see when it runs.
	loadEncoding = loadBPE
)

// encoding returns the named encoding, loading it on its first use in
// the process (loadEncoding), or nil when it cannot be loaded.
func encoding(name string) *bpe {
	load := loadEncoding
	f, _ := encodings.LoadOrStore(name, sync.OnceValues(func() (*bpe, error) { return load(name) }))
	enc, err := f.(func() (*bpe, error))()
	if err != nil {
		return nil
	}
	return enc
}

// splitPatterns are the patterns that cut text into the pieces each
// encoding merges within (OpenAI's definitions of the encodings, as
// tiktoken and github.com/pkoukk/tiktoken-go carry them), in
// regexp2's .NET syntax.
var splitPatterns = map[string]string{
	encodingO200K: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
	encodingCL100K: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// A bpe is an encoding loaded for counting: its ranks and the pattern
// that splits text into pieces. It counts what
// github.com/pkoukk/tiktoken-go's EncodeOrdinary returns, token for
// token (TestCountMatchesTiktoken, FuzzCount), without what encoding
// needs besides: tiktoken-go's NewCoreBPE also inverts the ranks into a
// decoder map and sorts every token, two fifths of the load's CPU, and
// its maps of 200,000 strings are heap the GC walks for the rest of the
// process; the ranks here are in a table with no pointers
// (rankTable).
type bpe struct {
	ranks *rankTable
	split *regexp2.Regexp
}

// loadBPE loads the named encoding from the embedded ranks files of
// github.com/pkoukk/tiktoken-go-loader (the offline loader's data).
func loadBPE(name string) (*bpe, error) {
	pat, ok := splitPatterns[name]
	if !ok {
		return nil, fmt.Errorf("unknown encoding %q", name)
	}
	file := name + ".tiktoken"
	data, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, err
	}
	ranks, err := parseRanks(file, data)
	if err != nil {
		return nil, err
	}
	split, err := regexp2.Compile(pat, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("%s: split pattern: %w", name, err)
	}
	return &bpe{ranks: ranks, split: split}, nil
}

// count returns the number of tokens of text, special-token text
// counted as ordinary text.
func (e *bpe) count(text string) int {
	n := 0
	m, _ := e.split.FindStringMatch(text) // an error is a timeout, and none is set
	for m != nil {
		n += e.ranks.pieceTokens(m.String())
		m, _ = e.split.FindNextMatch(m)
	}
	return n
}

// noRank marks a part that merges with no neighbour.
const noRank = math.MaxInt

// pieceTokens returns the number of tokens byte-pair encoding gives one
// piece: 1 for a token, else the parts left when, from single bytes,
// the adjacent pair whose join has the lowest rank (the leftmost of
// equals) is joined until no join is a token.
func (t *rankTable) pieceTokens(p string) int {
	if len(p) <= 1 {
		return len(p)
	}
	if _, ok := t.rank(p); ok {
		return 1
	}
	// parts[k] starts at byte parts[k].at; its rank is that of its join
	// with parts[k+1]. The last entry marks the end of p.
	type part struct{ at, rank int }
	var small [32]part
	parts := small[:0]
	for i := 0; i <= len(p); i++ {
		parts = append(parts, part{i, noRank})
	}
	// joined is the rank of parts k through k+n joined, or noRank.
	joined := func(k, n int) int {
		if k+n+1 < len(parts) {
			if r, ok := t.rank(p[parts[k].at:parts[k+n+1].at]); ok && r >= 0 {
				return r
			}
		}
		return noRank
	}
	for k := 0; k+2 < len(parts); k++ {
		parts[k].rank = joined(k, 1)
	}
	for len(parts) > 1 {
		best := -1
		for k, low := 0, noRank; k+1 < len(parts); k++ {
			if parts[k].rank < low {
				best, low = k, parts[k].rank
			}
		}
		if best < 0 {
			break
		}
		// parts best and best+1 become one: its rank is now that of its
		// join with the part after best+1, and its left neighbour's
		// that of the join with both.
		parts[best].rank = joined(best, 2)
		if best > 0 {
			parts[best-1].rank = joined(best-1, 2)
		}
		parts = slices.Delete(parts, best+1, best+2)
	}
	return len(parts) - 1
}

// A rankTable maps tokens to their ranks: an open-addressing hash table
// over entries whose bytes lie back to back in one string, with no
// pointer per entry (a Go map of 200,000 strings is that many pointers
// for every GC cycle to follow) and filled without rehashing.
type rankTable struct {
	tokens string   // entry k's bytes are tokens[spans[k]:spans[k+1]]
	spans  []uint32 // len(ranks)+1 offsets
	ranks  []int
	slots  []uint32 // entry+1, or 0 for an empty slot; a power of two long
	seed   maphash.Seed
	n      int // distinct tokens
}

// rank returns tok's rank and whether tok is a token.
func (t *rankTable) rank(tok string) (int, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, tok) & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if t.tokens[t.spans[e-1]:t.spans[e]] == tok {
			return t.ranks[e-1], true
		}
	}
}

// add enters entry k; a token entered before takes k's rank, as a map
// assignment would.
func (t *rankTable) add(k int) {
	tok := t.tokens[t.spans[k]:t.spans[k+1]]
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, tok) & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			t.slots[i] = uint32(k + 1)
			t.n++
			return
		}
		if t.tokens[t.spans[e-1]:t.spans[e]] == tok {
			t.slots[i] = uint32(k + 1)
			return
		}
	}
}

// Len returns the number of distinct tokens.
func (t *rankTable) Len() int { return t.n }

// parseRanks parses a tiktoken ranks file (each line a token in
// standard base64, a space, its rank) into a rankTable, as the offline
// loader of github.com/pkoukk/tiktoken-go-loader parses it into a map
// (TestRanksMatchOffline, FuzzParseRanks); an error names the file and
// line. The tokens are decoded into one buffer and the lines read in
// place.
func parseRanks(name string, data []byte) (*rankTable, error) {
	n := bytes.Count(data, []byte{'\n'}) + 1
	// Decoded tokens are at most 3/4 of their base64, itself less than
	// the file.
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	t := &rankTable{spans: make([]uint32, 1, n+1), ranks: make([]int, 0, n), seed: maphash.MakeSeed()}
	for line := 1; len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(l) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(l, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("%s:%d: no space between token and rank", name, line)
		}
		if i := bytes.IndexByte(rank, ' '); i >= 0 {
			rank = rank[:i] // the offline loader reads the second field only
		}
		start := len(buf)
		m, err := base64.StdEncoding.Decode(buf[start:start+base64.StdEncoding.DecodedLen(len(tok))], tok)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token: %w", name, line, err)
		}
		buf = buf[:start+m]
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: rank: %w", name, line, err)
		}
		if len(buf) > math.MaxUint32 || len(t.ranks) >= math.MaxUint32-1 {
			return nil, fmt.Errorf("%s:%d: too many tokens", name, line)
		}
		t.spans = append(t.spans, uint32(len(buf)))
		t.ranks = append(t.ranks, r)
	}
	t.tokens = string(buf)
	size := 8
	for size < 2*len(t.ranks) {
		size *= 2
	}
	t.slots = make([]uint32, size)
	for k := range t.ranks {
		t.add(k)
	}
	return t, nil
}

// Tokenizer returns the token counter of a canonical model id whose
// wire name names an OpenAI model ("openai:gpt-5",
// "openrouter:openai/gpt-oss-120b"), or nil when its tokenizer is not
// known. Special-token text is counted as ordinary text. The model's
// encoding is loaded by Tokenizer itself, not by the counter, so that the
// driver's call to it before a stream's first attempt
// (driver.Estimator.Tokenizer) is where a process pays for the load: the
// estimate of a stream that ends without usage (a cancel) only counts.
func Tokenizer(model string) func(string) int {
	_, name, _ := strings.Cut(model, ":")
	enc := encodingFor(name)
	if enc == "" {
		return nil
	}
	e := encoding(enc)
	if e == nil {
		return func(text string) int { return (len(text) + 3) / 4 }
	}
	return e.count
}
