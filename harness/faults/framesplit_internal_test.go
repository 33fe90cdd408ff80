package faults

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A frame of AWS's largest size (16 MiB of payload, 128 KiB of headers,
// the prelude and the CRC) is split as any other; one byte more is
// refused by its prelude, before anything is buffered.
func TestFrameSplitterLargestFrame(t *testing.T) {
	const largest = 16<<20 + 128<<10 + 12 + 4
	prelude := func(total uint32) []byte {
		return binary.BigEndian.AppendUint32(nil, total)
	}
	s := newFrameSplitter(bytes.NewReader(append(prelude(largest), "rest of the frame"...)))
	frame, err := s.next()
	require.NoError(t, err)
	assert.Equal(t, 4+len("rest of the frame"), len(frame), "a body that ends inside the frame gives what it had")

	s = newFrameSplitter(bytes.NewReader(append(prelude(largest+1), "rest"...)))
	_, err = s.next()
	assert.ErrorContains(t, err, "impossible length 16908305")
}
