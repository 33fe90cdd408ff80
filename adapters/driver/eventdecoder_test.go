package driver

import (
	"encoding/json"
	"testing"
)

func TestEventDecoder(t *testing.T) {
	var d EventDecoder
	for _, tc := range []struct {
		data    string
		want    string // the decoded value's JSON, "" for an error
		wantErr string
	}{
		{data: `{"a":1}`, want: `{"a":1}`},
		{data: " {\"b\":[2]} \r\n", want: `{"b":[2]}`},
		{data: `{"a":1} {"a":2}`, wantErr: `invalid character '{' after the JSON value`},
		{data: `{"a":`, wantErr: "unexpected EOF"},
		{data: `{"c":true}`, want: `{"c":true}`}, // usable again after errors
		{data: ``, wantErr: "unexpected EOF"},
		{data: `nope`, wantErr: "invalid character 'o' in literal null (expecting 'u')"},
	} {
		var v any
		err := d.Decode([]byte(tc.data), &v)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Decode(%q) = %v, want error %q", tc.data, err, tc.wantErr)
			}
			continue
		}
		got, _ := json.Marshal(v)
		if err != nil || string(got) != tc.want {
			t.Errorf("Decode(%q) = %s, %v; want %s", tc.data, got, err, tc.want)
		}
	}
}

// FuzzEventDecoder: a decoder reused across events accepts exactly what
// json.Unmarshal accepts, event after event, and decodes the same value.
func FuzzEventDecoder(f *testing.F) {
	for _, s := range []string{`{"type":"ping"}`, `[1,2]`, `{"a":`, `1 2`, ` "x" `, `{}}`, ``} {
		f.Add([]byte(s), []byte(`{"next":true}`))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var d EventDecoder
		for _, data := range [][]byte{a, b, a} {
			var got, want any
			gerr := d.Decode(data, &got)
			werr := json.Unmarshal(data, &want)
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("Decode(%q) error %v, json.Unmarshal error %v", data, gerr, werr)
			}
			if gerr == nil {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				if string(gj) != string(wj) {
					t.Fatalf("Decode(%q) = %s, want %s", data, gj, wj)
				}
			}
		}
	})
}
