package driver

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSSEReaderRelease checks that a reader released before the end of
// its stream (a decoder stopping at [DONE]) fails later reads instead of
// returning what followed, and that Release may be repeated and called
// after the end.
func TestSSEReaderRelease(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: a\n\ndata: [DONE]\n\ndata: after\n\n"))
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "a", string(e.Data))
	r.Release()
	r.Release()
	for range 2 {
		_, err = r.Next()
		assert.ErrorIs(t, err, ErrSSEReleased)
	}

	r = NewSSEReader(strings.NewReader("data: x\n\n"))
	_, err = r.Next()
	require.NoError(t, err)
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	r.Release()
	_, err = r.Next()
	assert.ErrorIs(t, err, io.EOF, "Release after the end keeps the end")
}

// TestSSEReaderReleaseReusesBuffer checks that a stream left before its
// end gives its 32 KiB buffer back: a reader that stops at the first of
// two events and is released allocates fewer objects per stream than one
// that is not (which allocates a new buffer every time). The first
// event has two data lines, so that its data is copied out of the
// buffer either way (an event of one line is not, until Release gives
// the buffer back).
func TestSSEReaderReleaseReusesBuffer(t *testing.T) {
	const body = "data: a\ndata: a\n\ndata: b\n\n"
	read := func(release bool) float64 {
		return testing.AllocsPerRun(200, func() {
			r := NewSSEReader(strings.NewReader(body))
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			if release {
				r.Release()
			}
		})
	}
	kept, released := read(false), read(true)
	assert.Less(t, released, kept-0.5, "allocations per stream: %.2f released, %.2f not", released, kept)
}

// splitReader returns its parts one Read at a time.
type splitReader struct{ parts []string }

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts = r.parts[1:]
	return n, nil
}

// TestSSEReaderDataOutlivesRefill checks the event data an SSEReader does
// not copy (one data line, read whole from its buffer): when the blank
// line that ends the event comes in a later read, which overwrites the
// buffer, or a second data line follows, the data is what was sent.
func TestSSEReaderDataOutlivesRefill(t *testing.T) {
	r := NewSSEReader(&splitReader{parts: []string{"data: first\n", "\ndata: second\n", "data: third\n\n", "data: last\n\n"}})
	for _, want := range []string{"first", "second\nthird", "last"} {
		e, err := r.Next()
		require.NoError(t, err)
		assert.Equal(t, want, string(e.Data))
	}
	r.Release()
}
