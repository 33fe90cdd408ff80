package driver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeOrderedJSON(t *testing.T) {
	for _, tc := range []struct{ name, in, out string }{
		{"member order kept", `{"z":1,"a":{"y":true,"b":null},"m":[{"k":"v","c":2}]}`, `{"z":1,"a":{"y":true,"b":null},"m":[{"k":"v","c":2}]}`},
		{"number literals kept", `{"n":1.50,"big":12345678901234567890,"e":1e400}`, `{"n":1.50,"big":12345678901234567890,"e":1e400}`},
		{"whitespace dropped", " { \"a\" : [ 1 , 2 ] ,\n\"b\" : { } } ", `{"a":[1,2],"b":{}}`},
		{"duplicate key: first place, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"scalars", `"x"`, `"x"`},
		{"strings re-escaped as encoding/json does", `{"s":"<\u00e9>"}`, `{"s":"\u003cé\u003e"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := DecodeOrderedJSON([]byte(tc.in))
			require.NoError(t, err)
			out, err := json.Marshal(v)
			require.NoError(t, err)
			assert.Equal(t, tc.out, string(out))
		})
	}

	for _, tc := range []struct{ in, want string }{
		{`{"a":`, "invalid JSON at byte"},
		{`{"a":1`, "unexpected EOF"},
		{`{"a":1} {}`, "unexpected data after the top-level value"},
		{`{"a":]`, "invalid JSON"},
		{``, "unexpected EOF"},
		{strings.Repeat("[", MaxJSONDepth+2) + strings.Repeat("]", MaxJSONDepth+2), "nested deeper than 512 levels"},
	} {
		_, err := DecodeOrderedJSON([]byte(tc.in))
		require.Error(t, err, "%.40q", tc.in)
		assert.Contains(t, err.Error(), tc.want, "%.40q", tc.in)
	}
	_, err := DecodeOrderedJSON([]byte(strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth)))
	assert.NoError(t, err, "MaxJSONDepth levels are accepted")
}

func TestJSONObject(t *testing.T) {
	v, err := DecodeOrderedJSON([]byte(`{"b":1,"a":{"x":"y"}}`))
	require.NoError(t, err)
	o := v.(*JSONObject)
	assert.Equal(t, 2, o.Len())
	assert.True(t, o.Has("a"))
	assert.False(t, o.Has("x"))
	assert.Nil(t, o.Get("x"))
	assert.Equal(t, "y", o.Get("a").(*JSONObject).Get("x"))

	// Set replaces in place while ranging, and appends new keys.
	var keys []string
	for k, v := range o.All() {
		keys = append(keys, k)
		o.Set(k, []any{v})
	}
	if diff := cmp.Diff([]string{"b", "a"}, keys); diff != "" {
		t.Errorf("keys in order (-want +got):\n%s", diff)
	}
	o.Set("c", false)
	out, err := o.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"b":[1],"a":[{"x":"y"}],"c":false}`, string(out))

	var zero JSONObject
	out, err = zero.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(out))

	for v, want := range map[any]string{nil: "null", true: "a boolean", "s": "a string", json.Number("1"): "a number", o: "an object", 3: "a number", 2.5: "a number", struct{}{}: "struct {}"} {
		assert.Equal(t, want, JSONKind(v))
	}
	assert.Equal(t, "a list", JSONKind([]any{}))
}

// FuzzDecodeOrderedJSON: any input either fails cleanly or decodes to a
// value whose encoding means what encoding/json reads from the input.
func FuzzDecodeOrderedJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"],"a":2}`, `[]`, `{"type":"object","properties":{"p":{"type":"string"}}}`, `1e999`, `{"a":`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeOrderedJSON(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode it: %v", data, err)
		}
		var want, got any
		if json.Unmarshal(data, &want) != nil {
			return // beyond float64 range; encoding/json refuses it
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("encoding %s is not JSON: %v", out, err)
		}
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		if string(w) != string(g) {
			t.Fatalf("input %q means %s, encoding %s means %s", data, w, out, g)
		}
	})
}
