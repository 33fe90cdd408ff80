package faults

import (
	"bytes"
	"io"
)

// splitter reads server-sent events from a body one at a time, each with
// its own bytes up to and including the blank line that ends it (blank
// lines before an event stay with it), so that the events concatenate to
// the body. LF, CRLF and CR line endings are recognised. It scans each
// byte once, however the body arrives.
type splitter struct {
	r   io.Reader
	buf []byte
	tmp []byte

	i         int  // next byte of buf to scan
	lineStart int  // start of the current line in buf
	content   bool // the current event has a non-blank line
	err       error
}

func newSplitter(r io.Reader) *splitter { return &splitter{r: r} }

// next returns the next event. After the last one it returns io.EOF; a
// last event without its blank line is returned before that. A read error
// other than io.EOF is returned as soon as it happens.
func (s *splitter) next() ([]byte, error) {
	for {
		if ev, ok := s.scan(); ok {
			return ev, nil
		}
		if s.err != nil {
			if s.err == io.EOF && len(s.buf) > 0 {
				ev := s.buf
				s.buf, s.i, s.lineStart, s.content = nil, 0, 0, false
				return ev, nil
			}
			return nil, s.err
		}
		s.fill()
	}
}

// scan looks for the end of an event in buf from where it last stopped.
func (s *splitter) scan() ([]byte, bool) {
	for s.i < len(s.buf) {
		c := s.buf[s.i]
		if c != '\n' && c != '\r' {
			s.i++
			continue
		}
		end := s.i + 1
		if c == '\r' {
			if end == len(s.buf) && s.err == nil {
				return nil, false // a '\n' may follow in the next read
			}
			if end < len(s.buf) && s.buf[end] == '\n' {
				end++
			}
		}
		blank := s.i == s.lineStart
		s.i, s.lineStart = end, end
		if !blank {
			s.content = true
			continue
		}
		if s.content {
			ev := append([]byte(nil), s.buf[:end]...)
			s.buf = s.buf[end:]
			s.i, s.lineStart, s.content = 0, 0, false
			return ev, true
		}
	}
	return nil, false
}

func (s *splitter) fill() {
	if s.tmp == nil {
		s.tmp = make([]byte, 4096)
	}
	n, err := s.r.Read(s.tmp)
	s.buf = append(s.buf, s.tmp[:n]...)
	if err != nil {
		s.err = err
	}
}

// cutFrame returns the first part of one event (or of a whole
// non-streamed body), ending inside its JSON value: what a connection
// that closes cleanly in the middle of a frame delivers. For a server-sent
// event the cut falls in the middle of its first data line's value, so
// the event's name and the start of its JSON arrive and its end and the
// blank line that would dispatch it do not; an event without such a value,
// and any other body, is cut in the middle of its content. At least one
// byte arrives and at least one is missing, unless there is only one.
func cutFrame(ev []byte) []byte {
	start, end := 0, len(bytes.TrimRight(ev, "\r\n \t"))
	for line := 0; line < len(ev); {
		nl := bytes.IndexAny(ev[line:], "\r\n")
		stop := len(ev)
		if nl >= 0 {
			stop = line + nl
		}
		if v, ok := bytes.CutPrefix(ev[line:stop], []byte("data:")); ok {
			start = stop - len(bytes.TrimLeft(v, " "))
			end = stop
			break
		}
		if nl < 0 {
			break
		}
		line = stop + 1
	}
	if end-start < 2 {
		// No value to cut inside (data: with nothing after it): cut the
		// event itself in half.
		start, end = 0, len(bytes.TrimRight(ev, "\r\n \t"))
	}
	return ev[:min(end, start+max(1, (end-start)/2))]
}
