package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/internal/jsonindent"
	"github.com/metis-llm/metis/harness/internal/readfile"
	"github.com/metis-llm/metis/harness/internal/textdiff"
	"github.com/metis-llm/metis/internal/atomicfile"
)

// Golden file names in a run's golden directory.
const (
	GoldenTranscript = "transcript.json"
	GoldenRequests   = "requests.json"
	GoldenEvents     = "events.json"
)

// ErrNoGolden is wrapped by CompareGolden's error when the golden file
// does not exist and update is false.
var ErrNoGolden = errors.New("no golden file")

// GoldenDiff is the one comparison behind every golden check, in go test
// (through goldie) and in the CLI: a (-want +got) line diff, "" when want
// and got are byte-equal.
func GoldenDiff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	return textdiff.Diff(string(want), string(got))
}

// CompareGolden compares got with the golden file at path. It returns the
// (-want +got) diff, "" when they match. With update, a file that differs
// or is missing is rewritten (atomically, creating directories) and the
// diff is "": update never fails a comparison. Without update, a missing
// file gives the whole of got as the diff and an error wrapping
// ErrNoGolden.
func CompareGolden(path string, got []byte, update bool) (diff string, err error) {
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	// got's length is the size to expect: when the golden matches, one
	// read takes it whole and the next finds the end.
	want, err := readfile.Append((*bp)[:0], path, len(got))
	*bp = want[:0]
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !update {
			return GoldenDiff(nil, got), fmt.Errorf("%w %s", ErrNoGolden, path)
		}
	case err != nil:
		return "", fmt.Errorf("reading golden: %w", err)
	default:
		diff = GoldenDiff(want, got)
		if diff == "" || !update {
			return diff, nil
		}
	}
	return "", writeAtomic(path, got)
}

// readBufs are the buffers CompareGolden reads golden files into: a
// whole-suite run reads ten thousand of them, each compared and then
// dropped.
var readBufs = sync.Pool{New: func() any { return new([]byte) }}

// writeAtomic writes data to path through a temporary file in the same
// directory (atomicfile.Write), so a failure never leaves half a file.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("writing golden: %w", err)
	}
	return nil
}

// Normalizer renumbers the ids that differ between runs, in order of
// first appearance across every file of a run: canonical tool ids
// (tu_<ULID> → tu_1), request ids (req_<ULID> → req_1) and bare ULIDs
// such as message ids (→ msg_1).
type Normalizer struct {
	seen  map[string]string
	count map[string]int
}

var ulidPattern = regexp.MustCompile(`\b(?:(tu|req)_)?[0-9A-HJKMNP-TV-Z]{26}\b`)

// NewNormalizer returns a Normalizer that has seen no id yet.
func NewNormalizer() *Normalizer {
	return &Normalizer{seen: map[string]string{}, count: map[string]int{}}
}

// Apply replaces each id ulidPattern matches in b with its stable name,
// returning b itself when it holds none.
// It scans b once (see nextULID) rather than running ulidPattern, whose
// backtracking was a tenth of conform run's CPU; FuzzNormalizer holds the
// two to the same output.
func (n *Normalizer) Apply(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; ; {
		start, end := nextULID(b, i)
		if start < 0 {
			break
		}
		out = append(out, b[last:start]...)
		out = append(out, n.name(b[start:end])...)
		last, i = end, end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// name returns the stable name of id: prefix_N in order of appearance.
func (n *Normalizer) name(id []byte) string {
	if r, ok := n.seen[string(id)]; ok {
		return r
	}
	prefix, _, found := strings.Cut(string(id), "_")
	if !found {
		prefix = "msg"
	}
	n.count[prefix]++
	r := prefix + "_" + strconv.Itoa(n.count[prefix])
	n.seen[string(id)] = r
	return r
}

// nextULID returns the bounds of the first match of ulidPattern in b at
// or after from, or -1: at the first word start, an optional "tu_" or
// "req_" (preferred when it leads to a match, as the pattern's greedy
// group is), then 26 characters of the ULID alphabet ending a word.
func nextULID(b []byte, from int) (start, end int) {
	for i := from; i+ulidLen <= len(b); i++ {
		if i > 0 && isWordByte(b[i-1]) || !isWordByte(b[i]) {
			continue // no word boundary before b[i]
		}
		for _, p := range ulidPrefixes {
			if len(b)-i >= len(p) && string(b[i:i+len(p)]) == p {
				if e, ok := ulidAt(b, i+len(p)); ok {
					return i, e
				}
			}
		}
		if e, ok := ulidAt(b, i); ok {
			return i, e
		}
	}
	return -1, -1
}

// ulidLen is the length of a ULID; ulidPrefixes the prefixes ulidPattern
// keeps with one.
const ulidLen = 26

var ulidPrefixes = [...]string{"tu_", "req_"}

// ulidAt reports whether b holds, at i, 26 characters of the ULID alphabet
// followed by a word boundary, and the index after them.
func ulidAt(b []byte, i int) (int, bool) {
	e := i + ulidLen
	if e > len(b) || e < len(b) && isWordByte(b[e]) {
		return 0, false
	}
	for _, c := range b[i:e] {
		if !isULIDByte(c) {
			return 0, false
		}
	}
	return e, true
}

// isULIDByte reports whether c is in [0-9A-HJKMNP-TV-Z].
func isULIDByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U'
}

// isWordByte reports whether c is an ASCII word character, as \b sees it.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// EncodeIndented is json.MarshalIndent without HTML escaping, ending in a
// newline.
func EncodeIndented(v any) ([]byte, error) {
	e := indenters.Get().(*indenter)
	defer indenters.Put(e)
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return e.indent(e.buf.Bytes()), nil
}

// indent returns the compact JSON src indented, in a buffer of its own.
func (e *indenter) indent(src []byte) []byte {
	// Sizing the buffer up front saves growing it step by step, which
	// for report.json (megabytes) cost more than the indenting itself.
	need := jsonindent.Size(len(src))
	if len(src) > pooledMax {
		return jsonindent.Append(make([]byte, 0, need), src)
	}
	if cap(e.out) < need {
		e.out = make([]byte, 0, need)
	}
	e.out = jsonindent.Append(e.out[:0], src)
	return bytes.Clone(e.out)
}

// pooledMax is the largest compact encoding EncodeIndented indents in a
// pooled buffer (then copies out); a larger one, such as report.json, is
// indented straight into the buffer it returns.
const pooledMax = 1 << 20

// An indenter is a compact encoder with its buffer and the buffer its
// output is indented into (jsonindent.Append: encoding/json's own indentation
// re-scans its output a byte at a time through its syntax checker).
// Indenters are pooled because every run encodes its goldens, and
// growing the buffers from nothing each time was a tenth of conform
// run's CPU.
type indenter struct {
	buf bytes.Buffer
	enc *json.Encoder
	out []byte
	raw []byte // appendTranscript's compact encoding
}

var indenters = sync.Pool{New: func() any {
	e := new(indenter)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// TranscriptJSON renders the session's messages with latency zeroed:
// created_at is already fixed by the run's clock.
func TranscriptJSON(msgs []canonical.Message) ([]byte, error) {
	out := make([]canonical.Message, len(msgs))
	for i, m := range msgs {
		if m.Metadata.Usage != nil {
			u := *m.Metadata.Usage
			u.LatencyMS = 0
			m.Metadata.Usage = &u
		}
		out[i] = m
	}
	e := indenters.Get().(*indenter)
	defer indenters.Put(e)
	src, ok := appendTranscript(e.raw[:0], out)
	e.raw = src[:0]
	if !ok {
		return EncodeIndented(out)
	}
	return e.indent(src), nil
}

// WireRequest is one HTTP request as requests.json records it.
type WireRequest struct {
	Provider string          `json:"provider"`
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Body     json.RawMessage `json:"body,omitempty"`
}

// RequestsJSON renders a run's wire requests as requests.json.
func RequestsJSON(reqs []WireRequest) ([]byte, error) {
	if reqs == nil {
		reqs = []WireRequest{}
	}
	return EncodeIndented(reqs)
}

// TraceLine is one line of events.json: a stream event, a non-streamed
// response, an HTTP attempt or a call's error.
type TraceLine struct {
	Step       int                   `json:"step"`
	Type       string                `json:"type"`
	Index      *int                  `json:"index,omitempty"`
	Model      string                `json:"model,omitempty"`
	Served     string                `json:"served_model,omitempty"`
	Text       string                `json:"text,omitempty"`
	Signature  string                `json:"signature,omitempty"`
	ToolUseID  string                `json:"tool_use_id,omitempty"`
	ToolName   string                `json:"tool_name,omitempty"`
	Partial    string                `json:"partial_json,omitempty"`
	Input      json.RawMessage       `json:"final_input,omitempty"`
	StopReason canonical.StopReason  `json:"stop_reason,omitempty"`
	Usage      *canonical.TokenUsage `json:"usage,omitempty"`
	Attempt    int                   `json:"attempt,omitempty"`
	Status     int                   `json:"status,omitempty"`
	WaitMS     int64                 `json:"wait_ms,omitempty"`
	Backoff    bool                  `json:"backoff,omitempty"`
	Class      canonical.ErrorClass  `json:"class,omitempty"`
	Code       string                `json:"code,omitempty"`
}

// EventLine is the events.json line of stream event ev of step.
func EventLine(step int, ev canonical.StreamEvent) TraceLine {
	l := TraceLine{Step: step, Type: string(ev.Type)}
	switch ev.Type {
	case canonical.EventMessageStart:
		l.Model = ev.Model
	case canonical.EventTextDelta, canonical.EventThinkingDelta:
		l.Index, l.Text, l.Signature = intp(ev.Index), ev.Text, ev.Signature
	case canonical.EventToolUseStart:
		l.Index, l.ToolUseID, l.ToolName = intp(ev.Index), ev.ToolUseID, ev.ToolName
	case canonical.EventToolUseInput:
		l.Index, l.ToolUseID, l.Partial = intp(ev.Index), ev.ToolUseID, ev.PartialJSON
	case canonical.EventToolUseEnd:
		l.Index, l.ToolUseID = intp(ev.Index), ev.ToolUseID
		l.Input = compactJSON(ev.FinalInput)
	case canonical.EventUsageUpdate:
		l.Usage = ev.Usage
	case canonical.EventMessageComplete:
		if ev.Response != nil {
			l.Served = ev.Response.ServedModel
			l.StopReason = ev.Response.StopReason
			u := ev.Response.Usage
			l.Usage = &u
		}
	}
	return l
}

func intp(i int) *int { return &i }

func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	c, err := canonical.CanonicalJSON(raw)
	if err != nil {
		return json.RawMessage(strconv.Quote(string(raw)))
	}
	return c
}

// EventsJSON renders the trace as a JSON array with one line per entry.
func EventsJSON(lines []TraceLine) ([]byte, error) {
	e := indenters.Get().(*indenter)
	defer indenters.Put(e)
	out := append(e.out[:0], '[')
	for i := range lines {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n  "...)
		n := len(out)
		var ok bool
		if out, ok = appendTraceLine(out, &lines[i]); ok {
			continue
		}
		out = out[:n]
		e.buf.Reset()
		if err := e.enc.Encode(lines[i]); err != nil {
			e.out = out[:0]
			return nil, err
		}
		out = append(out, bytes.TrimRight(e.buf.Bytes(), "\n")...)
	}
	out = append(out, "\n]\n"...)
	e.out = out
	return bytes.Clone(out), nil
}
