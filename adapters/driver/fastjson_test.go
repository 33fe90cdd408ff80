package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

var fastJSONSeeds = []string{
	`"plain"`, `"esc\n\t\"\\\/\b\f\r"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\udc00x"`, "\"\xff\xfe\"", `"ü"`, `"`, `"\x"`, `"\u12"`,
	`{"a":1,"b":[true,false,null,{"c":"d"}],"e":-1.5e+3}`, `{"a":1,"a":2}`, `{"a" : "b" }`, `{}`, `[]`, `{"a":01}`, `{"a":1,}`,
	` {"k":"v"} `, `{"k":"v"} x`, `{"\u006b":1}`, `[1,2`, `-`, `1.`, `.5`, `1e`, `tru`, `nul`,
}

// FuzzJSONString holds JSONString to encoding/json's decoding of a string.
func FuzzJSONString(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := JSONString(data)
		var want string
		err := json.Unmarshal(data, &want)
		if ok && (err != nil || got != want) {
			t.Fatalf("JSONString(%q) = %q, encoding/json gives %q, %v", data, got, want, err)
		}
	})
}

// FuzzStrings holds a Strings to encoding/json: each string it decodes
// from the values in data (split at newlines), one after another from the
// same blocks, is what encoding/json decodes, and none changes as later
// ones are written.
func FuzzStrings(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s + "\n" + s))
	}
	f.Add([]byte(strings.Repeat("\"0123456789abcdef\"\n", 300) + "\"" + strings.Repeat("\xff", 3000) + "\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		var strs Strings
		var got, want []string
		for v := range bytes.SplitSeq(data, []byte("\n")) {
			s, ok := strs.JSONString(v)
			var w string
			err := json.Unmarshal(v, &w)
			if ok && (err != nil || s != w) {
				t.Fatalf("JSONString(%q) = %q, encoding/json gives %q, %v", v, s, w, err)
			}
			if ok {
				got, want = append(got, s), append(want, strings.Clone(w))
			}
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("string %d changed to %q after later ones, want %q", i, got[i], want[i])
			}
		}
	})
}

// TestStringsAllocs: the deltas of a stream cost an allocation per block
// of memory, not one each; a nil *Strings allocates each.
func TestStringsAllocs(t *testing.T) {
	v := []byte(`"a delta of some 32 bytes, \"quoted\""`)
	var strs Strings
	if n := testing.AllocsPerRun(1000, func() { strs.JSONString(v) }); n > 0.05 {
		t.Errorf("%v allocations per string from a Strings, want about 1 per %d bytes", n, stringsBlock)
	}
	if n := testing.AllocsPerRun(100, func() { (*Strings)(nil).JSONString(v) }); n != 1 {
		t.Errorf("%v allocations per string from a nil *Strings, want 1", n)
	}
}

// FuzzJSONMembers holds JSONMembers to encoding/json's notion of one
// well-formed object: whatever it accepts is valid JSON, an object, with
// the members encoding/json sees.
func FuzzJSONMembers(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]json.RawMessage{}
		ok := JSONMembers(data, func(k, v []byte) bool {
			got[string(k)] = append(json.RawMessage(nil), v...)
			return true
		})
		if !ok {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(data, &want); err != nil || want == nil {
			t.Fatalf("JSONMembers accepts %q, encoding/json: %v", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json sees %d", data, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Fatalf("%q: member %q is %s, encoding/json sees %s", data, k, got[k], v)
			}
		}
	})
}

// FuzzValidJSON holds ValidJSON to json.Valid, and CompactObject to
// json.Compact of an object: the same verdict and the same bytes.
func FuzzValidJSON(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(` {"a" : [1, "x y", {"b":"\"  \\"}], "c":"\\\\"} `))
	f.Add([]byte(`{"a":"\\\" "}`))
	f.Add([]byte(strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := ValidJSON(data), json.Valid(data); got != want {
			t.Fatalf("ValidJSON(%q) = %v, json.Valid says %v", data, got, want)
		}
		var want json.RawMessage
		if i := skipWS(data, 0); i < len(data) && data[i] == '{' {
			var buf bytes.Buffer
			if json.Compact(&buf, data) == nil {
				want = buf.Bytes()
			}
		}
		if got := CompactObject(data); !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("CompactObject(%q) = %q, json.Compact gives %q", data, got, want)
		}
	})
}

func TestCompactObject(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{" {\"a\" :\n[1, 2]} \n", `{"a":[1,2]}`},
		{`{"s":"a b\" c"}`, `{"s":"a b\" c"}`},
		{`{"s":"a\\" , "t": 1}`, `{"s":"a\\","t":1}`},
		{`[1]`, ``},
		{`{"a":}`, ``},
		{``, ``},
	} {
		if got := string(CompactObject([]byte(c.in))); got != c.want {
			t.Errorf("CompactObject(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestJSONMembersManyKeys checks that an object of more than 16 members
// (a Responses API response object has 30) is read, a duplicate among
// them still declined, and the common small object costs no allocation.
func TestJSONMembersManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	obj := b.String() + "}"
	n := 0
	if !JSONMembers([]byte(obj), func(k, v []byte) bool { n++; return true }) || n != 40 {
		t.Errorf("40 members read as %d", n)
	}
	dup := b.String() + `,"k3":1}`
	if JSONMembers([]byte(dup), func(k, v []byte) bool { return true }) {
		t.Errorf("a duplicate 41st key is accepted")
	}
	small := []byte(`{"type":"x","index":1,"delta":{"text":"hi"}}`)
	if a := testing.AllocsPerRun(100, func() { JSONMembers(small, func(k, v []byte) bool { return true }) }); a != 0 {
		t.Errorf("%v allocations for a small object, want 0", a)
	}
}
