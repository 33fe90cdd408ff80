package jsonindent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indentCases are JSON texts whose indentation json.Indent decides:
// empty bodies, nesting, escapes (a quote and a backslash before the
// closing quote), punctuation inside strings, numbers and literals at
// every position, whitespace to drop and a trailing newline to keep.
var indentCases = []string{
	`{}`,
	`[]`,
	`{}` + "\n",
	`"s"`,
	`12.5e-3`,
	`true`,
	` null `,
	`{"a":1}`,
	`{"a":{},"b":[],"c":[{}],"d":[[]]}`,
	`[1,true,false,null,"x",-0.5,{"k":"v"}]`,
	`{"q":"a\"b","bs":"c\\","u":"\u00e9\n{[,:]}"}`,
	`{"a" : [ 1 , 2 ] ,` + "\n\t" + `"b":{ }}` + "\n",
	`{"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["x"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
}

func TestAppend(t *testing.T) {
	cases := append([]string(nil), indentCases...)
	// The suite's own goldens are what the encoder produces: each
	// compacted, then indented again, must come back byte for byte.
	// (events.json is a line per event, not indented: EventsJSON.)
	var paths []string
	for _, name := range []string{"transcript.json", "requests.json"} {
		p, err := filepath.Glob(filepath.Join("..", "..", "..", "goldens", "streaming", "*", "*", "*", name))
		if err != nil || len(p) == 0 {
			t.Fatalf("no %s under goldens/streaming (%v)", name, err)
		}
		paths = append(paths, p...)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := Append(nil, append(c.Bytes(), '\n')); !bytes.Equal(got, data) {
			t.Errorf("%s: re-indented differs from the file (at byte %d)", p, firstDiff(got, data))
		}
		cases = append(cases, c.String())
	}
	for _, src := range cases {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(src), "", "  "); err != nil {
			t.Fatalf("json.Indent(%q): %v", src, err)
		}
		if got := Append([]byte("prefix"), []byte(src)); string(got) != "prefix"+want.String() {
			t.Errorf("Append(%q) =\n%s\nwant\n%s", src, got[len("prefix"):], want.String())
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range indentCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatalf("json.Indent of valid %q: %v", src, err)
		}
		if got := Append(nil, src); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Append(%q) =\n%q\nwant\n%q", src, got, want.Bytes())
		}
		for depth := range 3 {
			if n, got := Len(src, depth), len(AppendAt(nil, src, depth)); n != got {
				t.Fatalf("Len(%q, %d) = %d, AppendAt wrote %d bytes", src, depth, n, got)
			}
		}
	})
}

// TestAppendGrowsOnce indents documents whose indentation is many times
// their compact size into a buffer with little room: the output is
// json.Indent's, Len measures it exactly, and the buffer is grown once to
// that size (by the measure) rather than a quarter at a time.
func TestAppendGrowsOnce(t *testing.T) {
	deep := strings.Repeat(`{"k":[`, 300) + "1" + strings.Repeat(`]}`, 300)
	wide := "[" + strings.Repeat(strings.Repeat("[", 20)+"1,2"+strings.Repeat("]", 20)+",", 200) + "0]"
	for _, src := range []string{deep, wide, indentCases[len(indentCases)-1]} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(src), "", "  "); err != nil {
			t.Fatal(err)
		}
		if n := Len([]byte(src), 0); n != want.Len() {
			t.Errorf("Len = %d, json.Indent wrote %d bytes", n, want.Len())
		}
		got := Append(make([]byte, 0, 16), []byte(src))
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Append differs from json.Indent at byte %d", firstDiff(got, want.Bytes()))
		}
		// One growth to the measured size leaves at most the allocator's
		// rounding (an eighth at these sizes); growing a quarter at a
		// time ends anywhere up to a quarter over.
		if slack := cap(got) - len(got); slack > len(got)/8+64 {
			t.Errorf("output of %d bytes in a buffer of %d: grown step by step", len(got), cap(got))
		}
	}
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestAppendAt indents a document's members one at a time, each at the
// depth it sits at, and requires the whole document's indentation.
func TestAppendAt(t *testing.T) {
	doc := `{"a":[{"b":1,"c":{"d":[]}},{}],"e":"x"}`
	var want bytes.Buffer
	if err := json.Indent(&want, []byte(doc), "", "  "); err != nil {
		t.Fatal(err)
	}
	got := []byte("{\n  \"a\": [\n    ")
	got = AppendAt(got, []byte(`{"b":1,"c":{"d":[]}}`), 2)
	got = append(got, ",\n    "...)
	got = AppendAt(got, []byte(`{}`), 2)
	got = append(got, "\n  ],\n  \"e\": "...)
	got = AppendAt(got, []byte(`"x"`), 1)
	got = append(got, "\n}"...)
	if string(got) != want.String() {
		t.Errorf("parts indented:\n%s\nwant\n%s", got, want.String())
	}
}
