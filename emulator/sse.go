package emulator

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/internal/wire"
)

// sseWriter writes server-sent events, flushing after each so clients see
// them one at a time. Write errors are sticky: once the client has gone,
// every later write is a no-op and ok reports false.
type sseWriter struct {
	ctx     context.Context
	w       http.ResponseWriter
	flusher http.Flusher
	err     error
	// crlf ends lines with CRLF, as Gemini does.
	crlf bool
	// lines writes each event's data as one line of newline-delimited
	// JSON (Ollama's streams) instead of a server-sent event.
	lines bool

	// A scripted mid-stream failure (Reply.StreamError): the provider's
	// error event, sent after failAt events, or at failHere when failAt
	// is 0; nothing is written after it.
	fail    *wire.Error
	api     API
	failAt  int
	sent    int
	stopped bool
	seen    wire.Stream // what the error event continues
}

// newSSEWriter sends the event-stream headers and a 200. Writing stops
// when ctx (the request's) is done.
func newSSEWriter(ctx context.Context, w http.ResponseWriter, contentType string, header http.Header) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache")
	for k, vs := range header {
		h[k] = vs
	}
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sseWriter{ctx: ctx, w: w, flusher: f}
}

// event writes one event: an "event:" line when name is non-empty, then
// "data: " + data + pad spaces, then the blank line that ends the event.
func (s *sseWriter) event(name string, data []byte, pad int) {
	if s.err != nil || s.stopped {
		return
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return
	}
	eol := "\n"
	if s.crlf {
		eol = "\r\n"
	}
	var b strings.Builder
	b.Grow(len(name) + len(data) + pad + 20)
	if s.lines {
		b.Write(data)
		b.WriteString(eol)
		s.write([]byte(b.String()))
		s.count(data)
		return
	}
	if name != "" {
		b.WriteString("event: ")
		b.WriteString(name)
		b.WriteString(eol)
	}
	b.WriteString("data: ")
	b.Write(data)
	for range pad {
		b.WriteByte(' ')
	}
	b.WriteString(eol)
	b.WriteString(eol)
	s.write([]byte(b.String()))
	s.count(data)
}

// count notes an event sent, for a scripted failure after so many.
func (s *sseWriter) count(data []byte) {
	if s.fail == nil {
		return
	}
	s.sent++
	s.observe(data)
	if s.failAt > 0 && s.sent == s.failAt {
		s.failure()
	}
}

func (s *sseWriter) write(b []byte) {
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// arm scripts the reply's mid-stream failure, if it has one.
func (s *sseWriter) arm(api API, r *Reply, model string) {
	if r.StreamError == "" {
		return
	}
	e := wireError(api, r.StreamError, r.ErrorMessage, model, "")
	e = withCode(api, e, r.ErrorCode)
	s.fail, s.api, s.failAt = &e, api, r.StreamErrorAfter
}

// observe notes what an OpenAI Responses error event continues: the last
// sequence_number and response object.
func (s *sseWriter) observe(data []byte) {
	if s.api != OpenAIResponses {
		return
	}
	var v struct {
		Seq      *int            `json:"sequence_number"`
		Response json.RawMessage `json:"response"`
	}
	if json.Unmarshal(data, &v) != nil {
		return
	}
	if v.Seq != nil {
		s.seen.Seq, s.seen.HaveSeq = *v.Seq, true
	}
	if len(v.Response) > 0 && v.Response[0] == '{' {
		s.seen.Response = v.Response
	}
}

// failHere sends the scripted failure now, if one is armed and not yet
// sent (a StreamErrorAfter beyond the content ends up here too), and
// reports whether the stream is over: renderers call it before their
// finishing events.
func (s *sseWriter) failHere() bool {
	if s.fail != nil && !s.stopped {
		s.failure()
	}
	return s.stopped
}

func (s *sseWriter) failure() {
	if s.err != nil || s.stopped {
		return
	}
	s.seen.EOL = "\n"
	if s.crlf {
		s.seen.EOL = "\r\n"
	}
	s.write(s.fail.Event(wire.API(s.api), &s.seen))
	s.stopped = true
}

// ok reports whether every write so far succeeded.
func (s *sseWriter) ok() bool { return s.err == nil }

// comment writes an SSE comment line (": text") followed by a blank line,
// as servers do to keep a connection alive.
func (s *sseWriter) comment(text string) {
	if s.err != nil || s.stopped {
		return
	}
	eol := "\n"
	if s.crlf {
		eol = "\r\n"
	}
	if _, err := s.w.Write([]byte(": " + text + eol + eol)); err != nil {
		s.err = err
		return
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// arrayWriter streams a JSON array one element at a time, flushing after
// each, the way Gemini streams without alt=sse: "[" then the elements
// separated by "\n,\r\n", then "\n]". Write errors are sticky, as for
// sseWriter.
type arrayWriter struct {
	ctx     context.Context
	w       http.ResponseWriter
	flusher http.Flusher
	n       int
	err     error
}

func newArrayWriter(ctx context.Context, w http.ResponseWriter) *arrayWriter {
	f, _ := w.(http.Flusher)
	return &arrayWriter{ctx: ctx, w: w, flusher: f}
}

func (a *arrayWriter) write(parts ...[]byte) {
	if a.err != nil {
		return
	}
	if err := a.ctx.Err(); err != nil {
		a.err = err
		return
	}
	for _, p := range parts {
		if _, err := a.w.Write(p); err != nil {
			a.err = err
			return
		}
	}
	if a.flusher != nil {
		a.flusher.Flush()
	}
}

// element writes one element of the array.
func (a *arrayWriter) element(data []byte) {
	sep := []byte("\n,\r\n")
	if a.n == 0 {
		sep = []byte("[")
	}
	a.n++
	a.write(sep, data)
}

// close ends the array; an array with no element is "[]".
func (a *arrayWriter) close() {
	if a.n == 0 {
		a.write([]byte("[]"))
		return
	}
	a.write([]byte("\n]"))
}
