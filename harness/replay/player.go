package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/internal/readfile"
)

// ErrNoCassette is wrapped by Load's error when the cassette file does not
// exist.
var ErrNoCassette = errors.New("no cassette")

// ErrEmptyCassette is wrapped by Load's error when the cassette file holds
// no interaction (it is empty, blank, only a provenance header, or lists
// none): a recording that wrote nothing, never a cassette to replay.
var ErrEmptyCassette = errors.New("empty cassette")

// Player replays one cassette as an http.RoundTripper. It is safe for
// concurrent use; concurrent identical requests are served in recorded
// order, each once.
type Player struct {
	file     string
	pace     time.Duration
	headers  []string
	names    []string // headers normalized for matchKey
	prov     Provenance
	match    Match
	semantic bool // WithSemantic was given

	mu           sync.Mutex
	interactions []*cassette.Interaction
	urls         []*url.URL
	keys         []string         // matching key per interaction
	queues       map[string][]int // matching key → unserved interaction indexes, in order
	served       []bool
	requests     int          // requests received (MatchSemantic numbers them)
	diffs        []Difference // MatchSemantic's non-equivalent requests served
}

// Load reads the cassette at path (with or without its ".yaml" suffix)
// and returns a Player for it, matching as its provenance header says
// (Provenance.Match). A missing file is an error wrapping ErrNoCassette
// that names the file, and one with no interaction an error wrapping
// ErrEmptyCassette that names it; a malformed provenance header is an error naming
// its line. A cassette without a header has a zero Provenance.
func Load(path string, opts ...Option) (*Player, error) {
	name := strings.TrimSuffix(path, ".yaml")
	file := name + ".yaml"
	bp := loadBufs.Get().(*[]byte)
	defer loadBufs.Put(bp)
	data, err := readfile.Append((*bp)[:0], file, -1)
	*bp = data[:0]
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w %s", ErrNoCassette, file)
		}
		return nil, fmt.Errorf("loading cassette %s: %w", file, err)
	}
	return load(name, data, opts)
}

// loadBufs are the buffers Load reads cassette files into: a whole-suite
// run loads two and a half thousand of them, each dropped once parsed,
// since the Player keeps copies of what it needs and never data itself
// (TestLoadKeepsNoBytesOfTheFile).
var loadBufs = sync.Pool{New: func() any { return new([]byte) }}

// load makes the Player of the cassette file name+".yaml" read into data
// (read once: its provenance header and its interactions).
func load(name string, data []byte, opts []Option) (*Player, error) {
	file := name + ".yaml"
	c, ok := parseCassette(name, data)
	if !ok {
		var err error
		if c, err = cassette.LoadWithFS(name, fileData{file, data}); err != nil {
			return nil, fmt.Errorf("loading cassette %s: %w", file, err)
		}
	}
	if len(c.Interactions) == 0 {
		return nil, fmt.Errorf("%w %s: it holds no interaction; delete it and record it again", ErrEmptyCassette, file)
	}
	var prov Provenance
	if HasProvenance(data) {
		var err error
		if prov, err = ParseProvenance(file, data); err != nil {
			return nil, err
		}
	}
	return New(c, append([]Option{withProvenance(prov)}, opts...)...)
}

// New returns a Player for a cassette already in memory. Interactions
// whose recorded URL does not parse are an error.
func New(c *cassette.Cassette, opts ...Option) (*Player, error) {
	p := &Player{file: c.File, headers: DefaultHeaders, queues: map[string][]int{}, match: MatchExact}
	for _, o := range opts {
		o.apply(p)
	}
	if p.semantic && p.match != MatchEndpoint {
		p.match = MatchSemantic
	}
	p.names = headerNames(p.headers)
	p.interactions = c.Interactions
	p.urls = make([]*url.URL, len(c.Interactions))
	p.keys = make([]string, len(c.Interactions))
	p.served = make([]bool, len(c.Interactions))
	for i, in := range c.Interactions {
		u, err := url.Parse(in.Request.URL)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: interaction %d: bad URL %q: %w", c.File, in.ID, in.Request.URL, err)
		}
		key := p.recordedKey(in, u)
		p.urls[i], p.keys[i] = u, key
		p.queues[key] = append(p.queues[key], i)
	}
	return p, nil
}

// File is the cassette's file name.
func (p *Player) File() string { return p.file }

// Provenance is the cassette's provenance header (zero when it has none
// or was not loaded from a file).
func (p *Player) Provenance() Provenance { return p.prov }

// Match is how the player matches requests.
func (p *Player) Match() Match { return p.match }

// RoundTrip serves the first unserved interaction matching req. It reads
// and closes req's body. The response's body honours req's context: once
// the context is done, reads fail with its error.
func (p *Player) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("replay: reading request body: %w", err)
		}
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	key := p.key(req.Method, req.URL, req.Header, body)
	p.mu.Lock()
	if p.match == MatchSemantic {
		i := p.serveSemantic(req, key, body)
		if i < 0 {
			err := p.mismatch(req, key, body)
			p.mu.Unlock()
			return nil, err
		}
		in := p.interactions[i]
		p.mu.Unlock()
		return p.response(req, in), nil
	}
	q := p.queues[key]
	if len(q) == 0 {
		err := p.mismatch(req, key, body)
		p.mu.Unlock()
		return nil, err
	}
	i := q[0]
	p.queues[key] = q[1:]
	p.served[i] = true
	in := p.interactions[i]
	p.mu.Unlock()
	return p.response(req, in), nil
}

func (p *Player) response(req *http.Request, in *cassette.Interaction) *http.Response {
	r := in.Response
	h := r.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	length := int64(len(r.Body))
	events := isEventStream(h.Get("Content-Type"))
	if events {
		length = -1
		h.Del("Content-Length")
	} else {
		h.Set("Content-Length", strconv.Itoa(len(r.Body)))
	}
	status := r.Status
	if status == "" {
		status = fmt.Sprintf("%d %s", r.Code, http.StatusText(r.Code))
	}
	proto, major, minor := r.Proto, r.ProtoMajor, r.ProtoMinor
	if proto == "" {
		proto, major, minor = "HTTP/1.1", 1, 1
	}
	return &http.Response{
		Status:        status,
		StatusCode:    r.Code,
		Proto:         proto,
		ProtoMajor:    major,
		ProtoMinor:    minor,
		Header:        h,
		Body:          newEventBody(req.Context(), r.Body, events, p.pace),
		ContentLength: length,
		Request:       req,
	}
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// Unused returns the interactions never served, in recorded order.
func (p *Player) Unused() []*cassette.Interaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*cassette.Interaction
	for i, in := range p.interactions {
		if !p.served[i] {
			out = append(out, in)
		}
	}
	return out
}

// MismatchError reports a request no unserved interaction matches.
type MismatchError struct {
	// Cassette is the cassette's file name.
	Cassette string
	// Method and URL identify the request.
	Method, URL string
	// Nearest is the ID of the most similar unserved interaction, -1
	// when there is none.
	Nearest int
	// Exhausted counts interactions that matched but were already served.
	Exhausted int
	// Diff is a (-want +got) line diff of the nearest interaction's
	// canonical request against this one's.
	Diff string
	// Match is how the player was matching.
	Match Match
	// Field is the first difference from the nearest interaction, and
	// Want and Got the values there (see FirstDifference).
	Field, Want, Got string
}

// Error explains the mismatch and includes the diff.
func (e *MismatchError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "replay: %s: no unserved interaction matches %s %s", e.Cassette, e.Method, e.URL)
	switch {
	case e.Match == MatchSemantic && e.Exhausted > 0:
		fmt.Fprintf(&sb, " (matching semantically, each request to an endpoint takes the next of its recorded interactions, and all %d were already served)", e.Exhausted)
	case e.Exhausted > 0:
		fmt.Fprintf(&sb, " (%d identical recorded request(s) were already served; each is served once)", e.Exhausted)
	}
	if e.Nearest < 0 {
		sb.WriteString("; every interaction has been served")
		return sb.String()
	}
	fmt.Fprintf(&sb, "; nearest is interaction %d (-want +got):\n%s", e.Nearest, e.Diff)
	switch e.Match {
	case MatchEndpoint:
		sb.WriteString("(the cassette is imported and matches on the endpoint only: method, path, alt and whether the request streams)\n")
	case MatchSemantic:
		sb.WriteString("(matching semantically: the cassette recorded no request to this endpoint, or fewer than the run made)\n")
	}
	return sb.String()
}

// mismatch builds the error for a request with key and body, comparing
// the readable texts; p.mu is held.
func (p *Player) mismatch(req *http.Request, key string, body []byte) error {
	e := &MismatchError{Cassette: p.file, Method: req.Method, URL: redactURL(req.URL), Nearest: -1, Match: p.match}
	for i, k := range p.keys {
		if k == key && p.served[i] {
			e.Exhausted++
		}
	}
	text := p.text(req.Method, req.URL, req.Header, body)
	texts := make([]string, len(p.interactions))
	for i, in := range p.interactions {
		texts[i] = p.recordedText(in, p.urls[i])
	}
	head := firstLine(text)
	best, bestScore := -1, 0
	for i, t := range texts {
		if p.served[i] {
			continue
		}
		score := changedLines(diffOf(t, text))
		if firstLine(t) != head {
			score += 1 << 20 // prefer the same method and path
		}
		if best < 0 || score < bestScore {
			best, bestScore = i, score
		}
	}
	if best >= 0 {
		e.Nearest = p.interactions[best].ID
		e.Diff = diffOf(texts[best], text)
		e.Field, e.Want, e.Got = FirstDifference(texts[best], text)
	}
	return e
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func changedLines(diff string) int {
	n := 0
	for _, line := range strings.Split(diff, "\n") {
		if strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") {
			n++
		}
	}
	return n
}

// redactURL drops the query's key parameter from error messages.
func redactURL(u *url.URL) string {
	c := *u
	q := c.Query()
	if q.Has("key") {
		q.Set("key", "REDACTED")
		c.RawQuery = q.Encode()
	}
	return c.String()
}

var _ http.RoundTripper = (*Player)(nil)
