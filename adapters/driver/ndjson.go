package driver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxNDJSONLine is the longest line an NDJSONReader accepts unless
// told otherwise: the same bound as an SSE event's.
const DefaultMaxNDJSONLine = DefaultMaxSSEEvent

// ndjsonBufSize is the size of an NDJSONReader's read buffer; longer
// lines are gathered in a buffer of their own, up to the line limit.
const ndjsonBufSize = 32 << 10

// ErrNDJSONLineTooLarge is returned (wrapped) when a line exceeds the
// reader's maximum size. A stream that fails with it is an
// invalid_response (StreamError).
var ErrNDJSONLineTooLarge = errors.New("ndjson: line too large")

// NDJSONReader reads a newline-delimited JSON stream (application/x-ndjson,
// as Ollama's native API streams): one JSON value per line, lines ended by
// LF or CRLF. It reads incrementally through a fixed buffer, never the
// whole body, and bounds each line.
//
// Blank lines (white space only) are skipped, and a leading byte-order
// mark is ignored. A last line that the stream ended without its newline
// is returned when it is a whole JSON value; when it is not (the
// connection was cut mid-line), Next fails with io.ErrUnexpectedEOF, which
// StreamError reports as a truncated stream.
type NDJSONReader struct {
	r       *bufio.Reader
	line    []byte // a line longer than the buffer, gathered here
	max     int
	err     error
	started bool
	// Lines counts the lines returned so far.
	Lines int
}

// NewNDJSONReader returns a reader over r. When r is the body the driver
// hands a Provider's DecodeStream, lines are bounded by the call's
// max_event_bytes (see Limits); otherwise by DefaultMaxNDJSONLine.
func NewNDJSONReader(r io.Reader) *NDJSONReader {
	n := &NDJSONReader{r: bufio.NewReaderSize(r, ndjsonBufSize), max: DefaultMaxNDJSONLine}
	if l, ok := r.(eventLimited); ok && l.maxEventSize() > 0 {
		n.max = l.maxEventSize()
	}
	return n
}

// SetMaxLineSize bounds the size of one line, its line terminator
// excluded; a longer line makes Next return an error.
func (n *NDJSONReader) SetMaxLineSize(size int) { n.max = size }

// Next returns the next line that is not blank, without its line
// terminator and surrounding white space. The line is valid only until
// the next call. At the end of the stream it returns io.EOF; any other
// error comes from the underlying reader, the size limit, or a last line
// cut off mid-value (io.ErrUnexpectedEOF).
func (n *NDJSONReader) Next() ([]byte, error) {
	for {
		if n.err != nil {
			return nil, n.err
		}
		line, terminated, err := n.readLine()
		if err != nil {
			n.err = err
			return nil, err
		}
		if !n.started {
			n.started = true
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !terminated && !json.Valid(line) {
			n.err = io.ErrUnexpectedEOF
			return nil, fmt.Errorf("ndjson: stream ended mid-line after %d lines: %w", n.Lines, io.ErrUnexpectedEOF)
		}
		n.Lines++
		return line, nil
	}
}

// readLine returns the next raw line and whether it ended with a newline
// (false only for a last line at EOF). At EOF with nothing read it
// returns io.EOF.
func (n *NDJSONReader) readLine() ([]byte, bool, error) {
	n.line = n.line[:0]
	for {
		chunk, err := n.r.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk
			if len(n.line) > 0 {
				n.line = append(n.line, chunk...)
				line = n.line
			}
			return line, true, n.check(bytes.TrimRight(line, "\r\n"))
		case errors.Is(err, bufio.ErrBufferFull):
			n.line = append(n.line, chunk...)
			if len(n.line) > n.max+1 { // +1: a CR that may end the line
				return nil, false, n.tooLarge()
			}
			continue
		case err == io.EOF:
			n.line = append(n.line, chunk...)
			if len(n.line) == 0 {
				return nil, false, io.EOF
			}
			return n.line, false, n.check(n.line)
		default:
			return nil, false, err
		}
	}
}

// check fails when line, its terminator excluded, is over the limit.
func (n *NDJSONReader) check(line []byte) error {
	if len(line) > n.max {
		return n.tooLarge()
	}
	return nil
}

func (n *NDJSONReader) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes (the max_event_bytes option)", ErrNDJSONLineTooLarge, n.max)
}
