package openai

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
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
	loaderOnce sync.Once
	encodings  sync.Map // name → func() (*tiktoken.Tiktoken, error), each loaded once
	// loadEncoding builds an encoding from its embedded ranks: a second
	// or more (o200k_base's 200,000 ranks), once per process. A variable
	// so that tests can see when it runs.
	loadEncoding = tiktoken.GetEncoding
)

// encoding returns the named encoding, loading it on its first use in
// the process (loadEncoding), or nil when it cannot be loaded.
func encoding(name string) *tiktoken.Tiktoken {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(ranksLoader{}) })
	load := loadEncoding
	f, _ := encodings.LoadOrStore(name, sync.OnceValues(func() (*tiktoken.Tiktoken, error) { return load(name) }))
	enc, err := f.(func() (*tiktoken.Tiktoken, error))()
	if err != nil {
		return nil
	}
	return enc
}

// ranksLoader reads the embedded ranks files of
// github.com/pkoukk/tiktoken-go-loader (the offline loader's data) into
// the map tiktoken builds its encoder from, the same map as the offline
// loader's (TestRanksLoaderMatchesOffline) at a fraction of its cost:
// the map is sized up front (the offline loader's grows, rehashing 200,000
// keys as it goes), the tokens are decoded into one buffer that every
// key is a substring of, and the lines are read in place.
type ranksLoader struct{}

// LoadTiktokenBpe returns the ranks of the file named by url's last
// element: each line is a token in standard base64, a space, its rank.
func (ranksLoader) LoadTiktokenBpe(url string) (map[string]int, error) {
	name := path.Base(url)
	data, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return parseRanks(name, data)
}

// parseRanks parses a tiktoken ranks file; an error names the file and
// line.
func parseRanks(name string, data []byte) (map[string]int, error) {
	n := bytes.Count(data, []byte{'\n'}) + 1
	ranks := make(map[string]int, n)
	// Decoded tokens are at most 3/4 of their base64, itself less than
	// the file.
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	type entry struct{ start, end, rank int }
	entries := make([]entry, 0, n)
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
		entries = append(entries, entry{start, start + m, r})
	}
	all := string(buf)
	for _, e := range entries {
		ranks[all[e.start:e.end]] = e.rank
	}
	return ranks, nil
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
	return func(text string) int { return len(e.EncodeOrdinary(text)) }
}
