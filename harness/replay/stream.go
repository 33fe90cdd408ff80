package replay

import (
	"context"
	"io"
	"net/http"
)

// ResplitStream is Resplit for live streams: it wraps next so that every
// text/event-stream response body hands out at most one server-sent
// event per Read, honouring the request's context, but splits the events
// as their bytes arrive instead of reading the body whole first. A stream
// that breaks off delivers its complete events, then what is left, then
// the error; one that stalls stalls. Put it under an adapter reaching the
// replay Server over a socket, so that cancelling mid-stream stops where
// it does in process.
func ResplitStream(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return resplitStream{next}
}

type resplitStream struct{ next http.RoundTripper }

func (r resplitStream) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || !isEventStream(resp.Header.Get("Content-Type")) {
		return resp, err
	}
	resp.Body = &eventReader{ctx: req.Context(), r: resp.Body}
	return resp, nil
}

// eventReader splits a body into server-sent events as it reads.
type eventReader struct {
	ctx context.Context
	r   io.ReadCloser
	buf []byte // read, not yet handed out
	cur []byte // the rest of the event being handed out
	err error  // the underlying reader's error, once seen
}

func (e *eventReader) Read(p []byte) (int, error) {
	for len(e.cur) == 0 {
		if end := eventEnd(e.buf, e.err != nil); end > 0 {
			e.cur, e.buf = e.buf[:end:end], e.buf[end:]
			break
		}
		if e.err != nil {
			return 0, e.err
		}
		var tmp [16 << 10]byte
		n, err := e.r.Read(tmp[:])
		e.buf = append(e.buf, tmp[:n]...)
		e.err = err
	}
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	n := copy(p, e.cur)
	e.cur = e.cur[n:]
	return n, nil
}

func (e *eventReader) Close() error { return e.r.Close() }

// eventEnd returns the length of the first complete event in b (through
// the blank line that ends it), 0 when b holds none; at the end of the
// stream (final) whatever is left counts as one.
func eventEnd(b []byte, final bool) int {
	lineStart, content := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			continue
		}
		end := i + 1
		if c == '\r' {
			if end == len(b) && !final {
				return 0 // a CR whose LF may be on its way
			}
			if end < len(b) && b[end] == '\n' {
				end++
			}
		}
		if i == lineStart && content {
			return end
		}
		if i != lineStart {
			content = true
		}
		i = end - 1
		lineStart = end
	}
	if final {
		return len(b)
	}
	return 0
}
