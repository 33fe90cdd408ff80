package check

import (
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
)

func FuzzJSONPointer(f *testing.F) {
	f.Add(`{"a":[1,{"b~c/d":true}]}`, "/a/-1/b~0c~1d", `{"a":[{}]}`)
	f.Add(`[]`, "/0", `[]`)
	f.Add(`{"x":1}`, "x~", `{"x":1.0}`)
	f.Fuzz(func(t *testing.T, doc, ptr, want string) {
		d, err := decodeJSON([]byte(doc))
		if err != nil {
			return
		}
		if _, err := scenario.SplitPointer(ptr); err == nil {
			resolvePointer(d, ptr)
		}
		if w, err := decodeJSON([]byte(want)); err == nil {
			if m := jsonContains(w, d, ""); m == "" && !jsonValueEqual(w, d) && isScalar(w) {
				t.Fatalf("scalar %s contained in %s without being equal", want, doc)
			}
		}
		if jsonContains(d, d, "") != "" {
			t.Fatalf("%s does not contain itself", doc)
		}
	})
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}
