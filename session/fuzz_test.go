package session

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeMessage feeds arbitrary column values to the row decoder: it
// must return a message or an error naming the message, never panic, and
// a decoded message must encode again.
func FuzzDecodeMessage(f *testing.F) {
	f.Add("user", `[{"type":"text","text":"hi"}]`, `{}`, 1)
	f.Add("assistant", `[{"type":"tool_use","id":"tu_1","name":"x","input":{"a":1}},{"type":"thinking","text":"t","signature":"s"}]`,
		`{"model":"anthropic:claude-sonnet-4-6","usage":{"input_tokens":8,"output_tokens":42,"cost_usd":"0.000654","pricing_version":"v","latency_ms":1},"status":"complete"}`, 1)
	f.Add("tool", `[{"type":"tool_result","tool_use_id":"tu_1","content":[{"type":"image","source":{"kind":"url","data":"x"},"media_type":"image/png"}]}]`, `{"parent_tool_use_id":"tu_1","extra":[1]}`, 1)
	f.Add("user", `[{"type":"audio"}]`, `{"routing":null}`, 0)
	f.Add("user", `[{"text":"no type"}]`, `{"usage":{"cost_usd":"abc"}}`, 2)
	f.Add("user", `{"type":"text"}`, `[]`, 1)
	f.Add("user", `[{"type":"text","te`, `{`, -1)
	f.Fuzz(func(t *testing.T, role, content, metadata string, version int) {
		m, err := decodeMessage("s1", "m1", role, content, metadata, 1_700_000_000_000_000, version)
		if err != nil {
			return
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("decoded message does not encode: %v", err)
		}
		if _, _, err := encodeMessage(m); err != nil {
			t.Fatalf("decoded message does not encode for the store: %v", err)
		}
	})
}
