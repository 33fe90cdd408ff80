package faults

import (
	"bufio"
	"bytes"
	"io"
	"mime"
)

// ndjsonType is the content type of newline-delimited JSON streams
// (Ollama's native API), whose events are lines.
const ndjsonType = "application/x-ndjson"

func isNDJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == ndjsonType
}

// lineSplitter reads a newline-delimited JSON stream one line at a time,
// each with its newline, so that the lines concatenate to the body; a
// last line without its newline is returned as it is.
type lineSplitter struct {
	r *bufio.Reader
}

func newLineSplitter(r io.Reader) *lineSplitter { return &lineSplitter{r: bufio.NewReader(r)} }

// next returns the next line, io.EOF after the last one.
func (s *lineSplitter) next() ([]byte, error) {
	line, err := s.r.ReadBytes('\n')
	if len(line) > 0 && (err == nil || err == io.EOF) {
		return line, nil
	}
	if err == nil {
		err = io.EOF
	}
	return nil, err
}

// ndjsonLine is one line of newline-delimited JSON: data, trimmed, and a
// newline.
func ndjsonLine(data []byte) []byte {
	return append(bytes.TrimSpace(append([]byte(nil), data...)), '\n')
}
