package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine is the longest line either side may write: 64 MiB, room for a
// request carrying images.
const MaxLine = 64 << 20

// A LineReader reads newline-terminated lines, counting them.
type LineReader struct {
	br   *bufio.Reader
	line int
}

// NewLineReader returns a LineReader over r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// ErrLineTooLong is wrapped by ReadLine's error for a line over MaxLine.
var ErrLineTooLong = errors.New("line too long")

// ReadLine returns the next line without its newline, and its number
// (from 1). At the end of input it returns io.EOF; input that ends
// without a final newline is an error wrapping io.ErrUnexpectedEOF.
func (r *LineReader) ReadLine() ([]byte, int, error) {
	var buf []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine+1 {
			r.line++
			r.discard(err)
			return nil, r.line, fmt.Errorf("line %d: %w (over %d MiB)", r.line, ErrLineTooLong, MaxLine>>20)
		}
		switch {
		case err == nil:
			r.line++
			if buf == nil {
				return bytes.Clone(chunk[:len(chunk)-1]), r.line, nil
			}
			buf = append(buf, chunk...)
			return buf[:len(buf)-1], r.line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		case errors.Is(err, io.EOF):
			if len(buf)+len(chunk) == 0 {
				return nil, r.line, io.EOF
			}
			r.line++
			return nil, r.line, fmt.Errorf("line %d ends without a newline: %w", r.line, io.ErrUnexpectedEOF)
		default:
			return nil, r.line, err
		}
	}
}

// discard skips the rest of an overlong line.
func (r *LineReader) discard(err error) {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = r.br.ReadSlice('\n')
	}
}

// A Writer writes messages, one line each; it is safe for concurrent
// use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	v1 bool
	// OnLine, when set, sees every line before it is written (tests
	// validate them).
	OnLine func(line []byte)
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// SetVersion makes w write lines of version (Version until called).
func (w *Writer) SetVersion(version string) {
	w.mu.Lock()
	w.v1 = version == V1
	w.mu.Unlock()
}

// Write encodes m as one line.
func (w *Writer) Write(m *Message) error {
	w.mu.Lock()
	v1 := w.v1
	w.mu.Unlock()
	data, err := encode(m, v1)
	if err != nil {
		return fmt.Errorf("protocol: encoding a %s message: %w", m.Type, err)
	}
	if len(data) > MaxLine {
		return fmt.Errorf("protocol: a %s message of %d bytes is over the %d MiB line limit", m.Type, len(data), MaxLine>>20)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.OnLine != nil {
		w.OnLine(data)
	}
	_, err = w.w.Write(append(data, '\n'))
	return err
}

// Decode parses one line; what it must hold is the schemas' business
// (ValidateFromAdapter, ValidateToAdapter).
func Decode(line []byte) (*Message, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	var m Message
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON object")
	}
	restoreRawInputs(&m)
	return &m, nil
}
