package driver

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
)

// ev is an expected event; an empty ID means none was set.
type ev struct{ Event, Data, ID string }

var sseCases = []struct {
	name string
	in   string
	want []ev
}{
	{"LF", "event: a\ndata: x\n\n", []ev{{"a", "x", ""}}},
	{"CRLF", "event: a\r\ndata: x\r\n\r\n", []ev{{"a", "x", ""}}},
	{"CR", "data: x\r\rdata: y\r\r", []ev{{"", "x", ""}, {"", "y", ""}}},
	{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n", []ev{{"", "a\nb\nc", ""}}},
	{"multi-line data", "data: line one\ndata: line two\ndata:\n\n", []ev{{"", "line one\nline two\n", ""}}},
	{"empty data field dispatches", "data\n\ndata:\n\n", []ev{{"", "", ""}, {"", "", ""}}},
	{"comments are skipped", ": ping\n\n:\ndata: x\n: inside\n\n", []ev{{"", "x", ""}}},
	{"event names", "event: message_start\ndata: {}\n\nevent: ping\ndata: {}\n\n", []ev{{"message_start", "{}", ""}, {"ping", "{}", ""}}},
	{"event name is per event", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1", ""}, {"", "2", ""}}},
	{"event without data is discarded", "event: a\n\ndata: x\n\n", []ev{{"", "x", ""}}},
	{"id persists", "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", []ev{{"", "a", "7"}, {"", "b", "7"}, {"", "c", ""}}},
	{"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []ev{{"", "a", "1"}, {"", "b", "1"}}},
	{"data without a space", "data:x\n\n", []ev{{"", "x", ""}}},
	{"only one space stripped", "data:  x\n\n", []ev{{"", " x", ""}}},
	{"whitespace after JSON kept", "data: {\"a\":1}   \t\n\n", []ev{{"", "{\"a\":1}   \t", ""}}},
	{"colon in value", "data: a: b\n\n", []ev{{"", "a: b", ""}}},
	{"missing final blank line: discarded", "data: x\n\ndata: y\n", []ev{{"", "x", ""}}},
	{"missing final blank line CR: discarded", "data: y\r", nil},
	{"missing final blank line CRLF: discarded", "data: x\r\n\r\nevent: done\r\ndata: y\r\n", []ev{{"", "x", ""}}},
	{"unterminated last line dropped", "data: x\n\ndata: y", []ev{{"", "x", ""}}},
	{"unterminated event dropped whole", "data: a\ndata: b", nil},
	{"retry and unknown fields ignored", "retry: 10\nfoo: bar\nDATA: no\ndata: x\n\n", []ev{{"", "x", ""}}},
	{"leading BOM ignored", "\xEF\xBB\xBFdata: x\n\n", []ev{{"", "x", ""}}},
	{"second BOM is data", "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n", []ev{{"", "y", ""}}},
	{"blank lines only", "\n\r\n\r\n\n", nil},
	{"empty stream", "", nil},
	{"field with no colon", "event\ndata: x\n\n", []ev{{"", "x", ""}}},
}

// chunkReader returns 1, 2, ... 7, 1, 2, ... bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	c.n = c.n%7 + 1
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

var sseReaders = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"one byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"1..7 bytes", func(b []byte) io.Reader { return &chunkReader{data: b} }},
	{"data with EOF", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
}

// readAll drains an SSEReader, copying each event.
func readAll(t testing.TB, r *SSEReader) ([]ev, error) {
	t.Helper()
	var out []ev
	for {
		e, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev{e.Event, string(e.Data), e.ID})
	}
}

func TestSSEReader(t *testing.T) {
	for _, tc := range sseCases {
		for _, rd := range sseReaders {
			t.Run(tc.name+"/"+rd.name, func(t *testing.T) {
				got, err := readAll(t, NewSSEReader(rd.wrap([]byte(tc.in))))
				assert.ErrorIs(t, err, io.EOF)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSSEReaderCountsComments(t *testing.T) {
	r := NewSSEReader(strings.NewReader(": ping\n\n: ping\ndata: x\n\n"))
	_, err := readAll(t, r)
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, 2, r.Comments)
}

func TestSSEReaderEOFIsSticky(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: x\n\n"))
	_, err := r.Next()
	require.NoError(t, err)
	for range 3 {
		_, err = r.Next()
		assert.ErrorIs(t, err, io.EOF)
	}
}

// TestSSEReaderHugeEvent reads a 9 MiB event, split over several data
// lines and one 4 MiB line, through a reader returning 1..7 bytes at a
// time. Speed is measured in BenchmarkSSEReaderHugeEvent.
func TestSSEReaderHugeEvent(t *testing.T) {
	line := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	var in, want bytes.Buffer
	in.WriteString("event: big\n")
	for i := range 5 {
		in.WriteString("data: ")
		in.Write(line)
		in.WriteString("\r\n")
		if i > 0 {
			want.WriteByte('\n')
		}
		want.Write(line)
	}
	long := bytes.Repeat([]byte{'x'}, 4<<20)
	in.WriteString("data:")
	in.Write(long)
	in.WriteString("\n\ndata: after\n\n")
	want.WriteByte('\n')
	want.Write(long)
	require.Greater(t, want.Len(), 9<<20)

	r := NewSSEReader(&chunkReader{data: in.Bytes()})
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "big", e.Event)
	assert.Equal(t, want.Len(), len(e.Data))
	assert.True(t, bytes.Equal(want.Bytes(), e.Data), "9 MiB event data differs")
	e, err = r.Next()
	require.NoError(t, err)
	assert.Equal(t, "after", string(e.Data))
	_, err = r.Next()
	assert.ErrorIs(t, err, io.EOF)
}

func TestSSEReaderMaxEventSize(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"data over the limit", "data: 0123456789\n\n"},
		{"many data lines over the limit", "data: 01234\ndata: 56789\n\n"},
		{"a long line of no field", ":" + strings.Repeat("c", 200) + "\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewSSEReader(iotest.OneByteReader(strings.NewReader(tc.in)))
			r.SetMaxEventSize(8)
			_, err := r.Next()
			assert.ErrorIs(t, err, ErrSSEEventTooLarge)
		})
	}
	r := NewSSEReader(strings.NewReader("data: 01234567\n\n"))
	r.SetMaxEventSize(8)
	e, err := r.Next()
	require.NoError(t, err, "exactly the limit is allowed")
	assert.Equal(t, "01234567", string(e.Data))
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := NewSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: partial\n"), iotest.ErrReader(boom)))
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "a", string(e.Data))
	_, err = r.Next()
	assert.ErrorIs(t, err, boom, "a read error is returned, and the half-read event is not dispatched")
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

func TestSSEReaderNoProgress(t *testing.T) {
	_, err := NewSSEReader(emptyReader{}).Next()
	assert.ErrorIs(t, err, io.ErrNoProgress)
}

// refParseSSE is a deliberately simple reference parser of the SSE
// specification over a whole input: an event is dispatched at its blank
// line only, so pending data at the end of the input is discarded.
func refParseSSE(in []byte) []ev {
	in = bytes.TrimPrefix(in, utf8BOM)
	var lines []string
	start := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\n':
			lines = append(lines, string(in[start:i]))
			start = i + 1
		case '\r':
			lines = append(lines, string(in[start:i]))
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	var (
		out     []ev
		data    []string
		hasData bool
		event   string
		id      string
	)
	for _, line := range lines {
		if line == "" {
			if hasData {
				out = append(out, ev{event, strings.Join(data, "\n"), id})
			}
			data, hasData, event = nil, false, ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			data = append(data, value)
			hasData = true
		case "event":
			event = value
		case "id":
			if !strings.Contains(value, "\x00") {
				id = value
			}
		}
	}
	return out
}

func TestRefParseSSEAgreesWithTable(t *testing.T) {
	// The reference parser must itself pass the table before it can
	// judge SSEReader in the fuzz target.
	for _, tc := range sseCases {
		if diff := cmp.Diff(tc.want, refParseSSE([]byte(tc.in))); diff != "" {
			t.Errorf("%s: reference parser events (-want +got):\n%s", tc.name, diff)
		}
	}
}

func FuzzSSEReader(f *testing.F) {
	for _, tc := range sseCases {
		f.Add([]byte(tc.in))
	}
	if dir, err := adaptertest.FixturesRoot(); err == nil {
		if data, err := os.ReadFile(filepath.Join(dir, "anthropic", "stream-thinking-signature", "response.txt")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := refParseSSE(in)
		for _, rd := range sseReaders[:3] {
			got, err := readAll(t, NewSSEReader(rd.wrap(in)))
			if !errors.Is(err, io.EOF) {
				t.Fatalf("%s: error %v, want io.EOF", rd.name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d events, reference %d\ngot  %q\nwant %q", rd.name, len(got), len(want), got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: event %d = %q, reference %q", rd.name, i, got[i], want[i])
				}
			}
		}
	})
}

func BenchmarkSSEReaderFixture(b *testing.B) {
	data := adaptertest.ReadFixture(b, "anthropic", "stream-thinking-signature", "response.txt")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewSSEReader(bytes.NewReader(data))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

func BenchmarkSSEReaderHugeEvent(b *testing.B) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	data := append(append([]byte("event: big\ndata: "), payload...), "\n\n"...)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewSSEReader(bytes.NewReader(data))
		e, err := r.Next()
		if err != nil || len(e.Data) != len(payload) {
			b.Fatalf("got %d bytes, %v", len(e.Data), err)
		}
	}
}
