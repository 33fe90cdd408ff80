package driver

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// FuzzJSONObjectAt holds the one-pass walk to JSONMembers and
// encoding/json. Left to skip every value, WalkJSONObject gives
// JSONMembers's verdict and keys. Descending into every value
// (JSONObjectAt, JSONArrayAt, Strings.JSONStringAt, JSONValueAt), what
// it accepts is valid JSON, and the value it rebuilds is the one
// encoding/json decodes.
func FuzzJSONObjectAt(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":[1,{"b":"x\\\"y"},[true,null]],"c":{"d":-1.5e3,"e":"\\","f":"\u00e9\ud83d\ude00"}}`))
	f.Add([]byte(`{"a":{"b":1,"b":2}}`))
	f.Add([]byte(`{"a":[1 , 2 ] , "b" : { } }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var skipped, members []string
		okSkip := WalkJSONObject(data, func(k, rest []byte) (int, bool) {
			skipped = append(skipped, string(k))
			return 0, true
		})
		okMembers := JSONMembers(data, func(k, v []byte) bool {
			members = append(members, string(k))
			return true
		})
		if okSkip != okMembers || okSkip && !slices.Equal(skipped, members) {
			t.Fatalf("%q: the walk skipping every value gives %v %q, JSONMembers %v %q", data, okSkip, skipped, okMembers, members)
		}

		var strs Strings
		var value func(rest []byte) (any, int, bool)
		value = func(rest []byte) (any, int, bool) {
			if len(rest) == 0 {
				return nil, 0, false
			}
			switch rest[0] {
			case '{':
				obj := map[string]any{}
				n, ok := JSONObjectAt(rest, func(k, rest []byte) (int, bool) {
					v, n, ok := value(rest)
					obj[string(k)] = v
					return n, ok
				})
				return obj, n, ok
			case '[':
				arr := []any{}
				n, ok := JSONArrayAt(rest, func(rest []byte) (int, bool) {
					v, n, ok := value(rest)
					arr = append(arr, v)
					return n, ok
				})
				return arr, n, ok
			case '"':
				return strs.JSONStringAt(rest)
			}
			v, ok := JSONValueAt(rest)
			if !ok {
				return nil, 0, false
			}
			var x any
			if err := json.Unmarshal(v, &x); err != nil {
				t.Fatalf("JSONValueAt(%q) = %q, encoding/json: %v", rest, v, err)
			}
			return x, len(v), true
		}
		var got any
		ok := WalkJSONObject(data, func(k, rest []byte) (int, bool) {
			if got == nil {
				got = map[string]any{}
			}
			v, n, ok := value(rest)
			got.(map[string]any)[string(k)] = v
			return n, ok
		})
		if !ok {
			return
		}
		if !okMembers {
			t.Fatalf("%q: the walk accepts what JSONMembers declines", data)
		}
		if got == nil {
			got = map[string]any{}
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("the walk accepts %q, encoding/json: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: the walk reads %#v, encoding/json %#v", data, got, want)
		}
	})
}

// TestJSONObjectAtDeclines: what the walk must refuse, whatever f does.
func TestJSONObjectAtDeclines(t *testing.T) {
	skip := func(k, rest []byte) (int, bool) { return 0, true }
	for _, c := range []struct {
		in string
		f  func(k, rest []byte) (int, bool)
	}{
		{`{"a":1,"a":2}`, skip},
		{`{"\u0061":1}`, skip},
		{`{"a":tru}`, skip},
		{`{"a":1,}`, skip},
		{`{"a":1} x`, skip},
		{"{\"a\x01\":1}", skip},
		{`{"a":"b"}`, func(k, rest []byte) (int, bool) { return len(rest) + 1, true }}, // past the end
		{`{"a":"b"}`, func(k, rest []byte) (int, bool) { return -1, true }},
		{`{"a":"b"}`, func(k, rest []byte) (int, bool) { return 2, true }}, // not the value's end
		{`{"a":"b"}`, func(k, rest []byte) (int, bool) { return 0, false }},
	} {
		if WalkJSONObject([]byte(c.in), c.f) {
			t.Errorf("WalkJSONObject(%q) accepts", c.in)
		}
	}
	if !WalkJSONObject([]byte(" {\"a\" : [1] , \"b\":{}} \n"), skip) {
		t.Error("WalkJSONObject declines a well-formed object with whitespace")
	}
}

// FuzzJSONIntAt holds the one-pass JSONIntAt to JSONValueAt and JSONInt,
// what it replaced: where they read an integer that ends the value (no
// digit right after it, which the enclosing walk refuses either way), it
// reads the same integer and length, and it reads nothing they do not.
func FuzzJSONIntAt(f *testing.F) {
	for _, s := range []string{"0", "-0", "12", "-12,", "123456789", "1234567890", "01", "1.5", "1e3", "-", "", "7}", "2147483647", "-999999999]", "0x1", `"1"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, n, ok := JSONIntAt(data)
		raw, okValue := JSONValueAt(data)
		want, okInt := 0, false
		if okValue {
			want, okInt = JSONInt(raw)
		}
		endsValue := okValue && (len(raw) == len(data) || data[len(raw)] < '0' || data[len(raw)] > '9')
		switch {
		case ok && (!okInt || v != want || n != len(raw)):
			t.Fatalf("JSONIntAt(%q) = %d, %d; JSONValueAt and JSONInt give %d (%v) of %q", data, v, n, want, okInt, raw)
		case !ok && okInt && endsValue:
			t.Fatalf("JSONIntAt(%q) declines; JSONValueAt and JSONInt read %d", data, want)
		}
	})
}

// TestJSONPrefixWalk reads a stream of objects with one JSONPrefix: an
// object that repeats the envelope (the members before the first key
// starting with c) is read from there on, and the rest of it is still
// checked.
func TestJSONPrefixWalk(t *testing.T) {
	steps := []struct {
		data    string
		resumed bool
		ok      bool
		keys    []string // the keys f is called with
	}{
		{`{"id":"x","model":"m","choices":[1],"u":null}`, false, true, []string{"id", "model", "choices", "u"}},
		{`{"id":"x","model":"m","choices":[2]}`, true, true, []string{"choices"}},
		{`{"id":"x","model":"m",  "choices":[2]} `, true, true, []string{"choices"}},
		{`{"id":"x","model":"m","choices":[2]}}`, true, false, []string{"choices"}},
		{`{"id":"x","model":"m","choices":[2`, true, false, []string{"choices"}},
		{`{"id":"x","model":"m","model":"n"}`, true, false, nil},
		{`{"id":"x","model":"m","choices":[],"id":"y"}`, true, false, []string{"choices"}},
		{`{"id":"x","model":"m","choices":[3]}`, true, true, []string{"choices"}},
		{`{"id":"y","model":"m","choices":[4]}`, false, true, []string{"id", "model", "choices"}},
		{`{"id":"y","model":"m","choices":[5]}`, true, true, []string{"choices"}},
		{`{"id":"y","model":"m","c":[5],"x":}`, true, false, []string{"c", "x"}},
		{`{"id":"z","model":"m"}`, false, true, []string{"id", "model"}},
		{`{"id":"z","model":"m","choices":[6]}`, false, true, []string{"id", "model", "choices"}},
		{`{"id":"z","model":"m","choices":[6],}`, true, false, []string{"choices"}},
		{`{"id":"q","cx":1,"cx":2}`, false, false, []string{"id", "cx"}},
		{`{"id":"q","cx":1}`, false, true, []string{"id", "cx"}},
		{`{}`, false, true, nil},
		{`{"id":"q","cx":1}`, false, true, []string{"id", "cx"}},
		{`{"cx":1}`, false, true, []string{"cx"}},
		{`{}`, false, true, nil}, // no envelope was remembered: "{" alone is not one
	}
	var p JSONPrefix
	mark := func(key []byte) bool { return len(key) > 0 && key[0] == 'c' }
	for i, s := range steps {
		var keys []string
		resumed, ok := p.Walk([]byte(s.data), mark, func(key, rest []byte) (int, bool) {
			keys = append(keys, string(key))
			return 0, true
		})
		if resumed != s.resumed || ok != s.ok || !slices.Equal(keys, s.keys) {
			t.Errorf("step %d %s: resumed %v, ok %v, keys %q; want %v, %v, %q", i, s.data, resumed, ok, keys, s.resumed, s.ok, s.keys)
		}
	}
}

// FuzzJSONPrefixWalk holds a walk resumed after an envelope to the whole
// walk: reading data after prev, JSONPrefix.Walk gives WalkJSONObject's
// verdict, and calls f with the keys WalkJSONObject does, less the
// envelope's when it resumes.
func FuzzJSONPrefixWalk(f *testing.F) {
	f.Add([]byte(`{"id":"x","choices":[1]}`), []byte(`{"id":"x","choices":[2]}`))
	f.Add([]byte(`{"id":"x","choices":[1]}`), []byte(`{"id":"x","choices":[2],"id":1}`))
	f.Add([]byte(` { "id" : "x" , "c" : 1 } `), []byte(` { "id" : "x" , "c" : 1 , "d":[} `))
	f.Add([]byte(`{"id":"x","choices":[1]}`), []byte(`{"id":"x","choices":[2]} }`))
	f.Fuzz(func(t *testing.T, prev, data []byte) {
		mark := func(key []byte) bool { return len(key) > 0 && key[0] == 'c' }
		var full []string
		wantOK := WalkJSONObject(data, func(key, rest []byte) (int, bool) {
			full = append(full, string(key))
			return 0, true
		})
		var p JSONPrefix
		p.Walk(prev, mark, func(key, rest []byte) (int, bool) { return 0, true })
		var keys []string
		resumed, ok := p.Walk(data, mark, func(key, rest []byte) (int, bool) {
			keys = append(keys, string(key))
			return 0, true
		})
		if ok != wantOK {
			t.Fatalf("%q after %q: resumed %v, ok %v; WalkJSONObject %v", data, prev, resumed, ok, wantOK)
		}
		if !ok {
			return
		}
		want := full
		if resumed {
			want = full[len(p.seen):]
		}
		if !slices.Equal(keys, want) {
			t.Fatalf("%q after %q: resumed %v, keys %q, want %q", data, prev, resumed, keys, want)
		}
	})
}
