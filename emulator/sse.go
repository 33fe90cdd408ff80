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
