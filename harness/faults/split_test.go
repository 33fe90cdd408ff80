package faults

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

func split(t testing.TB, r io.Reader) [][]byte {
	s := newSplitter(r)
	var out [][]byte
	for {
		ev, err := s.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func TestSplitter(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"LF", "data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"data: a\r\n\r\n", "data: b\r\n\r\n"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"data: a\r\r", "data: b\r\r"}},
		{"named multi-line event", "event: x\ndata: 1\ndata: 2\n\n", []string{"event: x\ndata: 1\ndata: 2\n\n"}},
		{"leading blank lines stay with the event", "\n\ndata: a\n\n", []string{"\n\ndata: a\n\n"}},
		{"unterminated tail", "data: a\n\ndata: b\n", []string{"data: a\n\n", "data: b\n"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		for name, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return bytes.NewReader([]byte(tt.body)) },
			"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader([]byte(tt.body))) },
		} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				var got []string
				for _, ev := range split(t, r()) {
					got = append(got, string(ev))
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSplitterReadError(t *testing.T) {
	boom := errors.New("boom")
	s := newSplitter(io.MultiReader(bytes.NewReader([]byte("data: a\n\ndata: b")), iotest.ErrReader(boom)))
	ev, err := s.next()
	require.NoError(t, err)
	assert.Equal(t, "data: a\n\n", string(ev))
	_, err = s.next()
	assert.ErrorIs(t, err, boom)
}

// FuzzSplitter checks the incremental splitter against replay.SplitEvents,
// reading the body one byte at a time.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: b\n\n"))
	f.Add([]byte("data: a\r\n\r\n\r\ndata: b"))
	f.Add([]byte("\r\r\n\n"))
	f.Add([]byte("event: e\r\ndata: x\r\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got := split(t, iotest.OneByteReader(bytes.NewReader(body)))
		want := replay.SplitEvents(body)
		if len(got) != len(want) {
			t.Fatalf("%q: %d events, SplitEvents gives %d", body, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: event %d is %q, SplitEvents gives %q", body, i, got[i], want[i])
			}
		}
	})
}
