package emulator

import (
	"context"
	"net/http"
	"strings"
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
	if s.err != nil {
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
	if _, err := s.w.Write([]byte(b.String())); err != nil {
		s.err = err
		return
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// ok reports whether every write so far succeeded.
func (s *sseWriter) ok() bool { return s.err == nil }

// comment writes an SSE comment line (": text") followed by a blank line,
// as servers do to keep a connection alive.
func (s *sseWriter) comment(text string) {
	if s.err != nil {
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
