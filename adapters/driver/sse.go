package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxSSEEvent is the largest SSE event an SSEReader accepts unless
// told otherwise.
const DefaultMaxSSEEvent = 64 << 20

// SSEEvent is one dispatched server-sent event. Data is valid only until
// the next call to Next or Release (an event's data may be a slice of the
// reader's buffer, which Release gives back to the pool).
type SSEEvent struct {
	// Event is the event name ("" when the stream named none).
	Event string
	// Data is the event's data lines joined with "\n".
	Data []byte
	// ID is the last event id seen, per the SSE specification.
	ID string
}

// SSEReader decodes a text/event-stream incrementally, following the SSE
// specification: LF, CRLF and CR line endings, multi-line data, comments,
// event names and ids, read boundaries anywhere. It reads through a fixed
// buffer and copies each event's data at most once, so an event of any
// size costs time linear in its length: an event whose data is one line,
// read whole from the buffer with the blank line that ends it (a stream's
// common event), is handed out in place, not copied.
//
// A leading byte-order mark is ignored, as the specification says. At
// the end of the stream, an event not yet dispatched — its blank line
// never came, whether or not its last line was ended — is discarded, as
// the WHATWG HTML standard's event-stream interpretation rules say
// ("once the end of the file is reached, any pending data must be
// discarded") and browsers' EventSource do. A stream whose terminal event
// is lost so is reported by its decoder as truncated (000 §6.5), never as
// a normal finish; no recording in testdata/recordings, and no cassette,
// ends without the final blank line.
type SSEReader struct {
	r       io.Reader
	buf     []byte
	start   int
	end     int
	err     error // sticky read error (io.EOF at end)
	line    []byte
	owned   bool // the last line returned is s.line, not a slice of buf
	skipLF  bool
	data    []byte
	hasData bool
	// inBuf is set while the event's data is its one data line, read
	// whole from buf: bufData, not yet copied (see keep).
	inBuf    bool
	bufData  []byte
	event    []byte
	lastID   string
	names    []string // event names seen, so each is a string once per stream
	lastName int      // index in names of the last event's name
	maxEvent int
	// Comments counts comment lines seen (": ping" keep-alives and the like).
	Comments int
	// pastFirstLine is set once the first line (which may carry a BOM)
	// has been read.
	pastFirstLine bool
	// pooled is buf's array, taken from sseBufs.
	pooled *[sseBufSize]byte
}

// release gives the read buffer back to the pool once the stream has
// ended; nothing in buf is referenced after that.
func (s *SSEReader) release() {
	s.inBuf, s.bufData = false, nil
	if s.pooled != nil {
		sseBufs.Put(s.pooled)
		s.pooled, s.buf = nil, nil
		s.start, s.end = 0, 0
	}
}

// Release gives the read buffer back to the pool when a decoder is done
// with a stream before its end (at a terminal event such as [DONE] or
// message_stop, or at an error); a reader that reaches the end of its
// body gives it back by itself. Later calls to Next fail with
// ErrSSEReleased. Release may be called more than once, and after the
// end; decoders defer it.
func (s *SSEReader) Release() {
	if s.err == nil {
		s.err = ErrSSEReleased
	}
	s.release()
}

// ErrSSEReleased is returned by Next after Release.
var ErrSSEReleased = errors.New("sse: reader released")

// utf8BOM is the byte-order mark a stream may start with.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxEmptyReads bounds consecutive reads that return no bytes and no
// error before Next gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// sseBufSize is the size of an SSEReader's read buffer.
const sseBufSize = 32 << 10

// sseBufs pools read buffers: a reader takes one on its first read and
// gives it back at the end of its stream (io.EOF or an error).
var sseBufs = sync.Pool{New: func() any { return new([sseBufSize]byte) }}

// maxNames bounds the event names a reader keeps as strings; a stream
// with more distinct names gets a new string for each event beyond them.
const maxNames = 32

// NewSSEReader returns a reader over r. Its 32 KiB read buffer comes from
// a pool shared by all readers and goes back to it when the stream ends.
// When r is the body the driver hands a Provider's DecodeStream, events
// are bounded by the call's max_event_bytes (see Limits); otherwise by
// DefaultMaxSSEEvent.
func NewSSEReader(r io.Reader) *SSEReader {
	s := &SSEReader{r: r, maxEvent: DefaultMaxSSEEvent}
	if l, ok := r.(eventLimited); ok && l.maxEventSize() > 0 {
		s.maxEvent = l.maxEventSize()
	}
	return s
}

// SetMaxEventSize bounds the size of one event's data; a larger event
// makes Next return an error.
func (s *SSEReader) SetMaxEventSize(n int) { s.maxEvent = n }

// ErrSSEEventTooLarge is returned (wrapped) when an event exceeds the
// reader's maximum size.
var ErrSSEEventTooLarge = errors.New("sse: event too large")

// Next returns the next event. At the end of the stream it returns io.EOF;
// any other error comes from the underlying reader or the size limit.
func (s *SSEReader) Next() (SSEEvent, error) {
	s.data = s.data[:0]
	s.hasData = false
	s.inBuf, s.bufData = false, nil
	s.event = s.event[:0]
	for {
		line, err := s.readLine()
		if err != nil {
			// Pending data at the end of the stream is discarded.
			return SSEEvent{}, err
		}
		if !s.pastFirstLine {
			s.pastFirstLine = true
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(line) == 0 {
			if !s.hasData {
				s.event = s.event[:0]
				continue
			}
			return s.dispatch(), nil
		}
		if line[0] == ':' {
			s.Comments++
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			s.keep() // a second data line: the first is copied
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > s.maxEvent {
				return SSEEvent{}, fmt.Errorf("%w: more than %d bytes (the max_event_bytes option)", ErrSSEEventTooLarge, s.maxEvent)
			}
			switch {
			case !s.hasData && !s.owned:
				// The first data line, in buf: it is the event's data
				// as it is unless buf is read into again before the
				// event ends, or another data line follows (keep).
				s.bufData, s.inBuf = value, true
			case !s.hasData && s.owned && len(value) > cap(s.data):
				// A long first data line already sits in s.line: take its
				// array instead of copying it, and give s.line ours.
				s.data, s.line = value, s.data[:0]
			default:
				s.data = append(s.data, value...)
			}
			s.hasData = true
		case "event":
			s.event = append(s.event[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		}
		// "retry" and unknown fields are ignored, as the specification says.
	}
}

func (s *SSEReader) dispatch() SSEEvent {
	data := s.data
	if s.inBuf {
		data = s.bufData
	}
	return SSEEvent{Event: s.name(), Data: data, ID: s.lastID}
}

// keep copies the event's data out of buf, before buf is read into again
// or another data line is appended to it. An event whose
// data is one line, read whole from buf, with its blank line, is so
// never copied: the scan that frames it is the only pass over its bytes
// before its decoder's.
func (s *SSEReader) keep() {
	if s.inBuf {
		s.data = append(s.data[:0], s.bufData...)
		s.inBuf, s.bufData = false, nil
	}
}

// name returns the current event's name as a string, allocating it only
// the first time the stream uses it: consecutive events of one name (the
// deltas) compare once, others search the few names seen.
func (s *SSEReader) name() string {
	if len(s.event) == 0 {
		return ""
	}
	if s.lastName < len(s.names) && s.names[s.lastName] == string(s.event) {
		return s.names[s.lastName]
	}
	for i, n := range s.names {
		if n == string(s.event) {
			s.lastName = i
			return n
		}
	}
	n := string(s.event)
	if len(s.names) < maxNames {
		s.names = append(s.names, n)
		s.lastName = len(s.names) - 1
	}
	return n
}

// readLine returns the next line without its terminator. The slice is
// valid until the next call.
func (s *SSEReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	spanning := false
	s.owned = false
	empty := 0
	for {
		if s.start < s.end {
			chunk := s.buf[s.start:s.end]
			if s.skipLF {
				s.skipLF = false
				if chunk[0] == '\n' {
					s.start++
					continue
				}
			}
			if i := indexEOL(chunk); i >= 0 {
				line := chunk[:i]
				s.start += i + 1
				if chunk[i] == '\r' {
					if i+1 < len(chunk) {
						if chunk[i+1] == '\n' {
							s.start++
						}
					} else {
						s.skipLF = true
					}
				}
				if spanning {
					s.owned = true
					s.line = append(s.line, line...)
					return s.line, nil
				}
				return line, nil
			}
			// No terminator in the buffer: keep the partial line.
			if len(s.line)+len(chunk) > s.maxEvent+64 {
				return nil, fmt.Errorf("%w: line longer than %d bytes (the max_event_bytes option)", ErrSSEEventTooLarge, s.maxEvent)
			}
			s.line = append(s.line, chunk...)
			spanning = true
			s.start, s.end = 0, 0
		}
		if s.err != nil {
			// An unterminated final line is dropped with its event.
			s.release()
			return nil, s.err
		}
		if s.buf == nil {
			s.pooled = sseBufs.Get().(*[sseBufSize]byte)
			s.buf = s.pooled[:]
		}
		s.keep()
		n, err := s.r.Read(s.buf)
		s.start, s.end = 0, n
		switch {
		case err != nil:
			s.err = err
		case n == 0:
			if empty++; empty >= maxEmptyReads {
				s.err = io.ErrNoProgress
			}
		default:
			empty = 0
		}
	}
}

// indexEOL returns the index of the first '\n' or '\r' in b, or -1. It
// uses two vectorised byte searches rather than a byte-at-a-time loop.
func indexEOL(b []byte) int {
	n := bytes.IndexByte(b, '\n')
	if n < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if r := bytes.IndexByte(b[:n], '\r'); r >= 0 {
		return r
	}
	return n
}
