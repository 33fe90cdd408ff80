package jsonwalk

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestDiffs(t *testing.T) {
	tests := []struct {
		a, b string
		want []string // path: a | b, "-" for absent
	}{
		{`{"x":1}`, `{"x":1}`, nil},
		{`{"x":1,"y":[1,2]}`, `{"y":[1,3],"x":1}`, []string{"$.y[1]: 2 | 3"}},
		{`{"b":1,"a":2}`, `{"c":1}`, []string{"$.a: 2 | -", "$.b: 1 | -", "$.c: - | 1"}},
		{`[1]`, `[1,{"k":null}]`, []string{"$[1]: - | map[k:<nil>]"}},
		{`{"x":{"y":1}}`, `{"x":[1]}`, []string{"$.x: map[y:1] | [1]"}},
		{`{"x":null}`, `{"x":false}`, []string{"$.x: <nil> | false"}},
	}
	for _, tt := range tests {
		var a, b any
		if err := json.Unmarshal([]byte(tt.a), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tt.b), &b); err != nil {
			t.Fatal(err)
		}
		var got []string
		for d := range Diffs("$", a, b) {
			got = append(got, fmt.Sprintf("%s: %s | %s", d.Path, show(d.A, d.HasA), show(d.B, d.HasB)))
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Diffs(%s, %s) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestDiffsStops: a consumer that stops after the first difference gets
// only the first, in key order.
func TestDiffsStops(t *testing.T) {
	a := map[string]any{"a": 1.0, "b": 1.0}
	b := map[string]any{"a": 2.0, "b": 2.0}
	n := 0
	for d := range Diffs("$", a, b) {
		n++
		if d.Path != "$.a" {
			t.Errorf("first difference at %s, want $.a", d.Path)
		}
		break
	}
	if n != 1 {
		t.Errorf("%d differences yielded, want 1", n)
	}
}

func show(v any, has bool) string {
	if !has {
		return "-"
	}
	return fmt.Sprint(v)
}
