package equiv_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/metis-llm/metis/harness/replay/equiv"
)

var formats = []equiv.Format{equiv.Anthropic, equiv.Responses, equiv.Chat, equiv.Gemini, equiv.Ollama, equiv.Converse, equiv.Generic}

// FuzzCompare: Compare never panics, a body is equivalent to itself and
// to its re-marshalled form.
func FuzzCompare(f *testing.F) {
	for _, file := range []string{"testdata/equivalent.json", "testdata/different.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var cases []struct{ Want, Got json.RawMessage }
		if err := json.Unmarshal(data, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			f.Add([]byte(c.Want), uint8(0))
			f.Add([]byte(c.Got), uint8(2))
		}
	}
	f.Add([]byte(`{"n": 1e999999, "m": -0.0, "x": [1.50, 2E+2]}`), uint8(6))
	f.Add([]byte(`{"messages": [{"content": null, "tool_calls": [{"function": {"arguments": "null"}}]}]}`), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, fi uint8) {
		format := formats[int(fi)%len(formats)]
		for _, o := range []equiv.Options{{}, {LimitSet: true}} {
			req := equiv.Request{Path: "/p", Body: body}
			if d := equiv.Compare(format, req, req, o); len(d) > 0 {
				t.Fatalf("%s: a body differs from itself: %v", format, d)
			}
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) != nil || dec.More() {
				continue
			}
			again, err := json.Marshal(v)
			if err != nil {
				continue
			}
			if d := equiv.Compare(format, req, equiv.Request{Path: "/p", Body: again}, o); len(d) > 0 {
				t.Fatalf("%s: a body differs from its re-marshalled form %s: %v", format, again, d)
			}
		}
	})
}
