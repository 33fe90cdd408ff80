package equiv_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"strconv"
	"strings"
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

// FuzzHolds: Holds and HoldsAbsent never panic, and the value a body has
// at a pointer holds there.
func FuzzHolds(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a"},{"type":"tool_use","id":"b"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"b"},{"type":"tool_result","tool_use_id":"a"}]}]}`), "/messages/1/content/0", uint8(0))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"a"},{"id":"b"}]},{"role":"tool","tool_call_id":"b"},{"role":"tool","tool_call_id":"a"}]}`), "/messages/-1/tool_call_id", uint8(2))
	f.Add([]byte(`{"input":[{"type":"function_call","call_id":"a"},{"type":"function_call_output","call_id":"a","output":"x"}]}`), "/input/1", uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, ptr string, fi uint8) {
		format := formats[int(fi)%len(formats)]
		equiv.HoldsAbsent(format, body, ptr)
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) != nil || dec.More() || !strings.HasPrefix(ptr, "/") || strings.Contains(ptr, "~") {
			equiv.Holds(format, body, ptr, []byte("1"))
			return
		}
		v, ok := doc, true
		for _, tok := range strings.Split(ptr[1:], "/") {
			switch x := v.(type) {
			case map[string]any:
				v, ok = x[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				ok = err == nil && i >= 0 && i < len(x)
				if ok {
					v = x[i]
				}
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if !ok {
			equiv.Holds(format, body, ptr, []byte(`"x"`))
			return
		}
		want, err := json.Marshal(v)
		if err != nil {
			return
		}
		if !equiv.Holds(format, body, ptr, want) {
			t.Fatalf("%s: %s does not hold its own value %s at %s", format, body, want, ptr)
		}
	})
}

// FuzzProtoBytes: ProtoBytes never panics, and what it decodes, encoded
// again in either alphabet, decodes to the same bytes.
func FuzzProtoBytes(f *testing.F) {
	for _, s := range []string{"c2lnLXJvdW5kLTE=", "skip_thought_signature_validator", "+/8", "-_8=", "a", "====", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := equiv.ProtoBytes(s)
		if err != nil {
			return
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			again, err := equiv.ProtoBytes(enc.EncodeToString(b))
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("ProtoBytes(%q) = %x; encoded again it decodes to %x, %v", s, b, again, err)
			}
		}
	})
}
