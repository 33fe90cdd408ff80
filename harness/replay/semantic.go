package replay

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/metis-llm/metis/harness/replay/equiv"
	"github.com/metis-llm/metis/internal/secrets"
)

// WithSemantic makes the player match as certification does
// (MatchSemantic), unless its cassette is imported and matches on the
// endpoint only (another client's traffic has no request to compare).
func WithSemantic() Option {
	return optionFunc(func(p *Player) { p.semantic = true })
}

// Call is what a harness tells a semantic player about the call a
// request belongs to, through the request's context (WithCall).
type Call struct {
	// Request is the request's number in the run, from 1, as the run's
	// requests.json counts it (attempts a fault answered included); 0
	// lets the player number the requests it receives.
	Request int
	// Step is the index of the scenario step that made the request, -1
	// when unknown.
	Step int
	// LimitSet says the call set an output-token limit, so that the
	// limit is compared (equiv.Options.LimitSet).
	LimitSet bool
}

type callKey struct{}

// WithCall returns ctx carrying c for a semantic player.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call WithCall put in ctx, if any.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// A Difference is a request a semantic player served although its body
// is not equivalent to the recorded one: the recorded answer went out,
// and Fields say where the request differs.
type Difference struct {
	// Request numbers the request in the run (Call.Request), or among
	// the player's requests, from 1.
	Request int `json:"request"`
	// Step is the scenario step's index, -1 when unknown.
	Step   int    `json:"step"`
	Method string `json:"method"`
	// Path is the request's path, with its query (values masked as
	// Canonical masks them).
	Path string `json:"path"`
	// Interaction is the id of the recorded interaction served.
	Interaction int                `json:"interaction"`
	Fields      []equiv.Difference `json:"fields"`
}

// Lines renders each field difference as one line, "request 2 (POST
// /v1/messages): messages[1].content[0].tool_use_id: want "toolu_1",
// got "x"".
func (d Difference) Lines() []string {
	out := make([]string, len(d.Fields))
	for i, f := range d.Fields {
		out[i] = fmt.Sprintf("request %d (%s %s): %s", d.Request, d.Method, d.Path, f)
	}
	return out
}

func (d Difference) String() string { return strings.Join(d.Lines(), "\n") }

// Differences returns the requests served although not equivalent to
// their recordings, in the order they came.
func (p *Player) Differences() []Difference {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Difference(nil), p.diffs...)
}

// semanticKey is a request's endpoint under MatchSemantic: the method,
// the path with its model segment (Gemini's /models/NAME:, Bedrock's
// /model/NAME/, Azure's /deployments/NAME/) left out, and the alt query
// parameter, which chooses Gemini's stream framing. Credentials and
// every other query parameter are left out.
func semanticKey(method string, u *url.URL) string {
	path := u.EscapedPath()
	for _, m := range modelSegments {
		path = m.re.ReplaceAllString(path, m.repl)
	}
	key := method + " " + path
	if alt := u.Query().Get("alt"); alt != "" {
		key += "?alt=" + url.QueryEscape(alt)
	}
	return key
}

var modelSegments = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`/models/[^/:]+:`), "/models/*:"},
	{regexp.MustCompile(`/model/[^/]+/`), "/model/*/"},
	{regexp.MustCompile(`/deployments/[^/]+/`), "/deployments/*/"},
}

// comparable is a body as a semantic player compares it: credential
// values masked as the recorder masks them and canonical ids numbered.
func comparable(body []byte) []byte {
	return []byte(NormalizeIDs(string(secrets.ScrubFields(body))))
}

// pickSemantic chooses the interaction for a request among the unserved
// ones of its endpoint q (in recorded order): the first whose request is
// equivalent, else the first that streams as the request does, else the
// first; it returns the choice's position in q and, when it is not
// equivalent, the differences. p.mu is held.
func (p *Player) pickSemantic(q []int, req *http.Request, body []byte, o equiv.Options) (int, []equiv.Difference) {
	f := equiv.FormatOf(req.URL.Path)
	got := equiv.Request{Path: req.URL.EscapedPath(), Header: req.Header, Body: comparable(body)}
	stream := streams(req.URL, body)
	pick := -1
	var pickDiffs []equiv.Difference
	sameStream := false
	for j, i := range q {
		in := p.interactions[i]
		want := equiv.Request{Path: p.urls[i].EscapedPath(), Header: in.Request.Headers, Body: comparable([]byte(in.Request.Body))}
		d := equiv.Compare(f, want, got, o)
		if len(d) == 0 {
			return j, nil
		}
		same := streams(p.urls[i], []byte(in.Request.Body)) == stream
		if pick < 0 || same && !sameStream {
			pick, pickDiffs, sameStream = j, d, same
		}
	}
	return pick, pickDiffs
}

// serveSemantic serves req under MatchSemantic; p.mu is held and
// key is req's semanticKey. It returns the interaction's index, or -1
// when the endpoint has no unserved interaction left.
func (p *Player) serveSemantic(req *http.Request, key string, body []byte) int {
	c, ok := CallFrom(req.Context())
	if !ok {
		c.Step = -1
	}
	p.requests++
	if c.Request == 0 {
		c.Request = p.requests
	}
	q := p.queues[key]
	if len(q) == 0 {
		return -1
	}
	j, diffs := p.pickSemantic(q, req, body, equiv.Options{LimitSet: c.LimitSet})
	i := q[j]
	p.queues[key] = append(q[:j:j], q[j+1:]...)
	p.served[i] = true
	if len(diffs) > 0 {
		path := req.URL.EscapedPath()
		if q := filterQuery(req.URL.Query()); q != "" {
			path += "?" + q
		}
		p.diffs = append(p.diffs, Difference{Request: c.Request, Step: c.Step, Method: req.Method, Path: path,
			Interaction: p.interactions[i].ID, Fields: diffs})
	}
	return i
}
