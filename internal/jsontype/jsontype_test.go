package jsontype

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestName(t *testing.T) {
	var fromJSON []any
	if err := json.Unmarshal([]byte(`[null, true, 1.5, "s", [], {}]`), &fromJSON); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range append(fromJSON, 3, int64(4), json.Number("5"), struct{}{}) {
		got = append(got, Name(v))
	}
	want := []string{"null", "a boolean", "a number", "a string", "a list", "an object", "a number", "a number", "a number", "struct {}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
