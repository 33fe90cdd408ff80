package faults

import (
	"encoding/binary"
	"fmt"
	"io"
)

// frameSplitter reads an AWS event stream (Bedrock's
// application/vnd.amazon.eventstream) one frame at a time, each frame
// whole, by the total length its prelude starts with. It splits without
// decoding: the adapter's decoder checks the CRCs and headers, so a
// frame a fault cuts or corrupts reaches it as it would from a server.
type frameSplitter struct {
	r io.Reader
}

func newFrameSplitter(r io.Reader) *frameSplitter { return &frameSplitter{r: r} }

// maxSplitFrame bounds the frame a splitter will buffer (AWS caps a
// frame at 16 MiB of payload and 128 KiB of headers).
const maxSplitFrame = 16<<20 + 128<<10 + 16

// next returns the next frame, io.EOF after the last one; a body that
// ends inside a frame gives what it had, then io.EOF.
func (s *frameSplitter) next() ([]byte, error) {
	var head [4]byte
	n, err := io.ReadFull(s.r, head[:])
	if n == 0 {
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return nil, err
	}
	if err != nil {
		return head[:n], nil
	}
	total := binary.BigEndian.Uint32(head[:])
	if total < 4 || total > maxSplitFrame {
		return nil, fmt.Errorf("faults: event-stream frame of impossible length %d", total)
	}
	frame := make([]byte, total)
	copy(frame, head[:])
	m, err := io.ReadFull(s.r, frame[4:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return frame[:4+m], nil
}
