package canonjson

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

// A case is a text with its canonical form and how a strict and a
// lenient Writer (MaxDepth 4) end on it.
type wantCase struct {
	text            string
	strict, lenient Result
	want            string // when a mode ends OK
}

var cases = []wantCase{
	{`{"b":1,"a":[true,null,{"d":"x","c":2}]}`, OK, OK, `{"a":[true,null,{"c":2,"d":"x"}],"b":1}`},
	{" {\n\t\"a\" : [ 1 , 2 ] \r\n} ", OK, OK, `{"a":[1,2]}`},
	{`[1.0,1e3,-0,1.50,0.5E-7,-1E+2]`, OK, OK, `[1.0,1e3,-0,1.50,0.5E-7,-1E+2]`},
	{`"a\u0001\b\f\n\r\t\"\\\/\u001F\u007f"`, OK, OK, "\"a\\u0001\\b\\f\\n\\r\\t\\\"\\\\/\\u001f\x7f\""},
	{`"\u003c\u00e9\ud83d\ude00 <&>"`, OK, OK, `"<é😀 <&>"`},
	{`{"é":1,"B":2,"a_":3,"a":0}`, OK, OK, `{"B":2,"a":0,"a_":3,"é":1}`},
	{`{}`, OK, OK, `{}`}, {`[]`, OK, OK, `[]`}, {`""`, OK, OK, `""`}, {`0`, OK, OK, `0`},
	// Prefix keys followed by a byte below '"': strict orders by the key's
	// bytes, lenient with the closing quote.
	{`{"a b":1,"a":2}`, OK, OK, ""},
	{`{"a":1,"a":2}`, Declined, OK, `{"a":2}`},
	{`{"b":1,"a":2,"b":3}`, Declined, OK, `{"a":2,"b":3}`},
	{`{"\u0061":1,"b":2}`, Declined, OK, `{"a":1,"b":2}`},
	{`"\ud83d"`, Declined, OK, `"` + "\uFFFD" + `"`},
	{`"\ude00\ud83d"`, Declined, OK, `"` + "\uFFFD\uFFFD" + `"`},
	{`"\ud83d\u0041"`, Declined, OK, `"` + "\uFFFDA" + `"`},
	{"\"a\xffb\"", Declined, OK, "\"a\uFFFDb\""},
	{"{\"\xc3\":1}", Declined, OK, "{\"\uFFFD\":1}"},
	{`[[[[1]]]]`, OK, OK, `[[[[1]]]]`},
	{`[[[[[1]]]]]`, Declined, Declined, ""},
	{`{"a":{"a":{"a":{"a":{}}}}}`, Declined, Declined, ""},
	{`[[[[[x]]]]]`, Declined, Declined, ""}, // declined before the rest is read
	{`-`, Invalid, Invalid, ""}, {`01`, Invalid, Invalid, ""}, {`1.`, Invalid, Invalid, ""},
	{`1e`, Invalid, Invalid, ""}, {`.5`, Invalid, Invalid, ""}, {`tru`, Invalid, Invalid, ""},
	{`nullx`, Invalid, Invalid, ""}, {`[1,]`, Invalid, Invalid, ""}, {`{"a":1,}`, Invalid, Invalid, ""},
	{`{"a"}`, Invalid, Invalid, ""}, {`{"a" 1}`, Invalid, Invalid, ""}, {`[1 2]`, Invalid, Invalid, ""},
	{`{} {}`, Invalid, Invalid, ""}, {``, Invalid, Invalid, ""}, {` `, Invalid, Invalid, ""},
	{"\"a\nb\"", Invalid, Invalid, ""}, {`"\x"`, Invalid, Invalid, ""}, {`"\u12G4"`, Invalid, Invalid, ""},
	{`"\ud83d\u12G4"`, Declined, Invalid, ""}, {`"abc`, Invalid, Invalid, ""}, {`"abc\`, Invalid, Invalid, ""},
	{`{"a":1`, Invalid, Invalid, ""}, {`[`, Invalid, Invalid, ""}, {`{1:2}`, Invalid, Invalid, ""},
}

func TestAppend(t *testing.T) {
	for _, tc := range cases {
		for _, lenient := range []bool{false, true} {
			w := Writer{MaxDepth: 4, Lenient: lenient}
			want := tc.strict
			if lenient {
				want = tc.lenient
			}
			got, r := w.Append([]byte("prefix:"), []byte(tc.text))
			if r != want {
				t.Errorf("lenient %v, %q: result %v, want %v", lenient, tc.text, r, want)
				continue
			}
			if r == OK && tc.want != "" && string(got) != "prefix:"+tc.want {
				t.Errorf("lenient %v, %q = %q, want %q", lenient, tc.text, got, "prefix:"+tc.want)
			}
		}
	}
	// The one difference in order between the modes.
	strict, _ := (&Writer{MaxDepth: 1}).Append(nil, []byte(`{"a b":1,"a":2}`))
	lenient, _ := (&Writer{MaxDepth: 1, Lenient: true}).Append(nil, []byte(`{"a":2,"a b":1}`))
	if string(strict) != `{"a":2,"a b":1}` || string(lenient) != `{"a b":1,"a":2}` {
		t.Errorf("strict %s, lenient %s", strict, lenient)
	}
}

// TestReuse: a Writer keeps only scratch space from one text to the next.
func TestReuse(t *testing.T) {
	w := Writer{MaxDepth: 10, Lenient: true}
	for range 2 {
		for _, tc := range cases {
			if tc.lenient != OK || tc.want == "" {
				continue
			}
			if got, r := w.Append(nil, []byte(tc.text)); r != OK || string(got) != tc.want {
				t.Errorf("%q = %q, %v; want %q", tc.text, got, r, tc.want)
			}
		}
	}
}

// TestHooks: Value replaces a member's value, Scrub rewrites a string
// with an escaped quote before it is read.
func TestHooks(t *testing.T) {
	w := Writer{
		MaxDepth: 10,
		Lenient:  true,
		Value: func(key, rest []byte) ([]byte, int, bool) {
			if string(key) != "pw" || rest[0] != '"' {
				return nil, 0, false
			}
			return []byte(`"***"`), bytes.IndexByte(rest[1:], '"') + 2, true
		},
		Scrub: func(q []byte) []byte {
			return bytes.ReplaceAll(q, []byte(`\"s\"`), []byte(`\"\u0053\"`))
		},
	}
	for _, tc := range []struct {
		text, want string
		r          Result
	}{
		{`{"pw":"ab","x":1}`, `{"pw":"***","x":1}`, OK},
		{`{"pw":"a\qb"}`, `{"pw":"***"}`, OK}, // the value replaced is not read
		{`{"pw":123}`, `{"pw":123}`, OK},
		{`{"p\u0077":"ab"}`, `{"pw":"ab"}`, OK}, // an escaped key is not offered
		{`{"a":"x\"s\"y","\"s\"":0}`, `{"\"S\"":0,"a":"x\"S\"y"}`, OK},
		{`{"a":"x\"s\"\q"}`, ``, Invalid},
		{"{\"a\":\"\x01\\\"s\\\"\"}", ``, Invalid},
		{`{"a":"x\"s\"`, ``, Invalid},
	} {
		got, r := w.Append(nil, []byte(tc.text))
		if r != tc.r || r == OK && string(got) != tc.want {
			t.Errorf("%q = %q, %v; want %q, %v", tc.text, got, r, tc.want, tc.r)
		}
	}
	// A Scrub that returns text with more after the string is Invalid.
	w = Writer{MaxDepth: 1, Lenient: true, Scrub: func(q []byte) []byte { return append(q, 'x') }}
	if _, r := w.Append(nil, []byte(`"\""`)); r != Invalid {
		t.Errorf("Scrub adding text after the string: %v, want Invalid", r)
	}
}

// FuzzAppend holds both modes to encoding/json: a text is Invalid only
// when it is not JSON and OK only when it is; what is OK decodes to the
// text's value, is compact, is its own canonical form, and (strict) has
// each object's keys in increasing order of their bytes.
func FuzzAppend(f *testing.F) {
	for _, tc := range cases {
		f.Add([]byte(tc.text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			w := Writer{MaxDepth: 64, Lenient: lenient}
			out, r := w.Append(nil, data)
			valid := json.Valid(data)
			switch {
			case r == Invalid && valid:
				t.Fatalf("lenient %v, %q: Invalid, but encoding/json takes it", lenient, data)
			case r == Declined && !lenient:
				continue
			case r == Declined:
				// Lenient declines nothing but depth.
				if d := depth(data); d <= w.MaxDepth {
					t.Fatalf("lenient, %q: Declined at depth %d", data, d)
				}
				continue
			case r == Invalid:
				continue
			case !valid:
				t.Fatalf("lenient %v, %q: OK, but encoding/json refuses it", lenient, data)
			}
			if !reflect.DeepEqual(decode(t, out), decode(t, data)) {
				t.Fatalf("lenient %v, %q: wrote %q, another value", lenient, data, out)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, out); err != nil || !bytes.Equal(compact.Bytes(), out) {
				t.Fatalf("lenient %v, %q: wrote %q, not compact", lenient, data, out)
			}
			if again, r := w.Append(nil, out); r != OK || !bytes.Equal(again, out) {
				t.Fatalf("lenient %v: %q is not its own canonical form: %q, %v", lenient, out, again, r)
			}
			if !lenient {
				checkKeyOrder(t, out)
			}
		}
	})
}

// depth is the deepest nesting of arrays and objects in a JSON text.
func depth(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	d, most := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return most
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			d++
			most = max(most, d)
		case json.Delim(']'), json.Delim('}'):
			d--
		}
	}
}

func decode(t *testing.T, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	return v
}

// checkKeyOrder checks that every object's keys in the JSON text data
// increase.
func checkKeyOrder(t *testing.T, data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type level struct {
		object  bool
		wantKey bool
		last    *string
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				if l := stack[n-1].last; l != nil && *l >= k {
					t.Fatalf("%q: key %q after %q", data, k, *l)
				}
				stack[n-1].last, stack[n-1].wantKey = &k, false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true // the value is read (or the object ends)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{object: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, level{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
		}
	}
}

// BenchmarkAppend writes a request body of the suite's shape (members
// out of order, a tool's JSON arguments in a string, non-ASCII text) in
// both modes, the lenient one with replay's hooks' shape.
func BenchmarkAppend(b *testing.B) {
	body := []byte(`{"model":"claude-sonnet-4-6","max_tokens":1024,"stream":true,"system":"Be brief — très brief.",` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"Weather in Paris?\nThanks"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris","unit":"c"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"{\"temp\":21,\"sky\":\"clear\"}"}]}],` +
		`"tools":[{"name":"get_weather","description":"Weather for a city","input_schema":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city"]}}]}`)
	for _, w := range []struct {
		name string
		w    Writer
	}{
		{"strict", Writer{MaxDepth: 1000}},
		{"lenient", Writer{MaxDepth: 256, Lenient: true,
			Scrub: func(q []byte) []byte { return q },
			Value: func(key, rest []byte) ([]byte, int, bool) { return nil, 0, false }}},
	} {
		b.Run(w.name, func(b *testing.B) {
			out := make([]byte, 0, len(body))
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				var r Result
				if out, r = w.w.Append(out[:0], body); r != OK {
					b.Fatal(r)
				}
			}
		})
	}
}
