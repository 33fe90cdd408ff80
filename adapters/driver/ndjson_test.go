package driver

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readLines reads every line of r with an NDJSONReader bounded by max
// (0: the default), returning the lines and the error that ended them
// (nil for io.EOF).
func readLines(r io.Reader, max int) ([]string, error) {
	nr := NewNDJSONReader(r)
	if max > 0 {
		nr.SetMaxLineSize(max)
	}
	var out []string
	for {
		line, err := nr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(line))
	}
}

func TestNDJSONReader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		want  []string
		isErr error
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, nil},
		{"crlf and blank lines", "\r\n{\"a\":1}\r\n\r\n  \n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}, nil},
		{"bom", "\ufeff{\"a\":1}\n", []string{`{"a":1}`}, nil},
		{"last line unterminated but whole", "{\"a\":1}\n{\"done\":true}", []string{`{"a":1}`, `{"done":true}`}, nil},
		{"last line cut mid-value", "{\"a\":1}\n{\"done\":tr", []string{`{"a":1}`}, io.ErrUnexpectedEOF},
		{"empty", "", nil, nil},
		{"white space only", " \n\n\t\n", nil, nil},
		{"not JSON is returned as is", "hello\n", []string{"hello"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readLines(strings.NewReader(tc.in), 0)
			if !errors.Is(err, tc.isErr) || (tc.isErr == nil) != (err == nil) {
				t.Fatalf("error = %v, want %v", err, tc.isErr)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
			// Read boundaries anywhere give the same lines.
			got1, err1 := readLines(iotest.OneByteReader(strings.NewReader(tc.in)), 0)
			if strings.Join(got1, "|") != strings.Join(got, "|") || (err1 == nil) != (err == nil) {
				t.Errorf("one byte at a time: %q, %v; want %q, %v", got1, err1, got, err)
			}
		})
	}
}

func TestNDJSONReaderLongLines(t *testing.T) {
	long := `{"t":"` + strings.Repeat("x", 3*ndjsonBufSize) + `"}`
	got, err := readLines(strings.NewReader(long+"\n{}\n"), 0)
	if err != nil || len(got) != 2 || got[0] != long || got[1] != "{}" {
		t.Fatalf("a line longer than the buffer: %d lines, err %v", len(got), err)
	}
	_, err = readLines(strings.NewReader(long+"\n"), len(long)-1)
	if !errors.Is(err, ErrNDJSONLineTooLarge) {
		t.Fatalf("over the limit: err = %v, want ErrNDJSONLineTooLarge", err)
	}
	if ae := StreamError(t.Context(), "p", err); ae.Code != "invalid_response" {
		t.Errorf("StreamError code = %q, want invalid_response", ae.Code)
	}
	got, err = readLines(strings.NewReader(long+"\r\n"), len(long))
	if err != nil || len(got) != 1 {
		t.Errorf("at the limit with CRLF: %d lines, err %v", len(got), err)
	}
	// A small limit holds for lines inside one buffer too.
	if _, err := readLines(strings.NewReader("{\"abc\":1}\n"), 4); !errors.Is(err, ErrNDJSONLineTooLarge) {
		t.Errorf("short line over a small limit: err = %v", err)
	}
}

func TestNDJSONReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\""), iotest.ErrReader(boom))
	got, err := readLines(r, 0)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("got %q, %v; want one line then boom", got, err)
	}
	nr := NewNDJSONReader(iotest.ErrReader(boom))
	nr.Next() //nolint:errcheck
	if _, err := nr.Next(); !errors.Is(err, boom) {
		t.Errorf("error is not sticky: %v", err)
	}
}

func TestNDJSONReaderBodyLimit(t *testing.T) {
	body := &bodyReader{ctx: t.Context(), r: strings.NewReader("{\"abcdef\":1}\n"), maxEvent: 5}
	if _, err := NewNDJSONReader(body).Next(); !errors.Is(err, ErrNDJSONLineTooLarge) {
		t.Errorf("the call's max_event_bytes is not applied: %v", err)
	}
}

// FuzzNDJSONReader checks that any input, read in any pieces, gives the
// same lines, none blank, none holding a newline, none over the limit.
func FuzzNDJSONReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\r\n\n"), 64)
	f.Add([]byte("\ufeff{}\n{\"done\":tr"), 3)
	f.Add([]byte("{\"x\":\"\r\"}\r\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max <= 0 || max > 1<<20 {
			max = 1 << 20
		}
		whole, errWhole := readLines(bytes.NewReader(data), max)
		bytewise, errBytes := readLines(iotest.OneByteReader(bytes.NewReader(data)), max)
		if strings.Join(whole, "\x00") != strings.Join(bytewise, "\x00") || (errWhole == nil) != (errBytes == nil) {
			t.Fatalf("read boundaries change the result: %q %v vs %q %v", whole, errWhole, bytewise, errBytes)
		}
		for _, l := range whole {
			if strings.TrimSpace(l) == "" || strings.Contains(l, "\n") || len(l) > max {
				t.Fatalf("bad line %q (max %d)", l, max)
			}
		}
	})
}
