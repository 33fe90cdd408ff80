package canonical

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// textCases are JSON texts for appendCanonicalText: each kind of value,
// escapes of every sort (surrogate pairs, escaped quotes and controls,
// "\/"), unsorted and nested members, and what it leaves to the general
// path (a repeated or escaped key, a lone surrogate, invalid UTF-8,
// deep nesting, text that is not JSON).
var textCases = []string{
	`{"b":1,"a":[true,null,{"d":"x","c":2}]}`,
	" {\n\t\"a\" : [ 1 , 2 ] \r\n} ",
	`[1.0,1e3,-0,1.50,12345678901234567890123,0.5E-7,-1E+2]`,
	`"a\u0001\b\f\n\r\t\"\\\/\u001F\u007f\u2028"`,
	`"\u003c\u00e9\ud83d\ude00 😀 <&>"`,
	`{"z":{"y":{"x":[],"w":{}},"v":"é"},"a":0,"é":1,"B":2,"a_":3}`,
	`{"c":1,"b":2,"a":3,"d":{"f":1,"e":[{"h":1,"g":2}]}}`,
	`{"a":1,"a":2}`,
	`{"b":1,"a":2,"b":3}`,
	`{"\u0061":1}`,
	`"\ud83d"`,
	`"\ude00\ud83d"`,
	`"\ud83d\u0041"`,
	"\"\xff\"",
	"{\"\xc3\":1}",
	strings.Repeat("[", 150) + strings.Repeat("]", 150),
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
	strings.Repeat(`{"a":`, 99) + "1" + strings.Repeat("}", 99),
	`{}`, `[]`, `""`, `0`, `-`, `01`, `1.`, `1e`, `.5`, `tru`, `nul`, `nullx`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a" 1}`,
	`[1 2]`, `{} {}`, ``, ` `, "\"a\nb\"", `"\x"`, `"\u12"`, `"\u12G4"`, `"abc`, `{"a":1`, `[`,
}

// FuzzCanonicalText holds appendCanonicalText to CanonicalJSON's general
// path: where it takes a text, the text is JSON and the bytes are the
// general path's.
func FuzzCanonicalText(f *testing.F) {
	for _, s := range textCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := appendCanonicalText(nil, data)
		want, err := canonicalDecoded(data)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("%q: the fast path took it, the general path: %v", data, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q:\nfast    %q\ngeneral %q", data, got, want)
		}
	})
}

// TestCanonicalText runs the cases and every JSON document among the
// repository's goldens and canonical fixtures through both paths: the
// same bytes wherever the fast path takes a text, and the fast path
// takes the goldens' request bodies (they have no escaped or repeated
// keys) — else CanonicalJSON would be as slow as before.
func TestCanonicalText(t *testing.T) {
	var texts [][]byte
	for _, s := range textCases {
		texts = append(texts, []byte(s))
	}
	taken := map[string]bool{}
	for _, s := range textCases[:7] {
		taken[s] = true // what the fast path must take
	}
	var bodies int
	for _, glob := range []string{"../goldens/*/*/*/*/*.json", "testdata/messages/*.json"} {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no files (%v)", glob, err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, data)
			if filepath.Base(p) != "requests.json" {
				continue
			}
			var reqs []struct {
				Body json.RawMessage `json:"body"`
			}
			if err := json.Unmarshal(data, &reqs); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, r := range reqs {
				if len(r.Body) > 0 && r.Body[0] == '{' {
					texts = append(texts, r.Body)
					taken[string(r.Body)] = true
					bodies++
				}
			}
		}
	}
	if bodies < 1000 {
		t.Fatalf("%d request bodies in the goldens: too few to tell", bodies)
	}
	for _, data := range texts {
		got, ok := appendCanonicalText(nil, data)
		want, err := canonicalDecoded(data)
		if !ok {
			if taken[string(data)] {
				t.Errorf("%.200q: left to the general path", data)
			}
			continue
		}
		if err != nil {
			t.Errorf("%.200q: the fast path took it, the general path: %v", data, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%.200q:\nfast    %.300q\ngeneral %.300q", data, got, want)
		}
	}
}
