package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// FuzzLoadSessionRows writes arbitrary values into every column a load
// reads — the sessions row's active model, routing state and schema
// version, a message row, a tool_calls row — and loads the session: it
// must come back or fail with an error naming the session, never panic,
// and a loaded session must save its messages again.
func FuzzLoadSessionRows(f *testing.F) {
	f.Add("anthropic:claude-sonnet-4-6", `{"mode":"default","reason":"workspace default"}`, 1,
		"assistant", `[{"type":"tool_use","id":"tu_1","name":"read_file","input":{}}]`, `{"provider":"anthropic","status":"complete"}`, 1,
		"pending", "anthropic", "toolu_1")
	f.Add("", `null`, 1, "user", `[]`, `{}`, 1, "succeeded", "", "")
	f.Add("x", `{"mode":7}`, 99, "tool", `[{"type":"tool_result","tool_use_id":"tu_9","content":[]}]`, `{"parent_tool_use_id":"tu_9"}`, 0, "weird", "openai", "")
	f.Add("openai:gpt-5", `{`, 1, "system", `[{"type":"text","text":"be brief"}]`, `{"status":"nonsense"}`, -3, "", "gemini", "fc_1")
	ctx := context.Background()
	st, err := OpenStore(":memory:")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	n := 0
	f.Fuzz(func(t *testing.T, model, routing string, sessVersion int, role, content, metadata string, msgVersion int, status, provider, providerID string) {
		n++
		id := fmt.Sprintf("s%d", n)
		if _, err := st.db.ExecContext(ctx, `INSERT INTO sessions (id, workspace_path, active_model, routing_policy_json, schema_version, created_at, updated_at)
  VALUES (?, '', ?, ?, ?, 0, 0)`, id, model, routing, sessVersion); err != nil {
			t.Fatal(err)
		}
		if _, err := st.db.ExecContext(ctx, `INSERT INTO messages (id, session_id, role, content_json, metadata_json, created_at, schema_version)
  VALUES (?, ?, ?, ?, ?, 1, ?)`, id+"m", id, role, content, metadata, msgVersion); err != nil {
			t.Fatal(err)
		}
		if _, err := st.db.ExecContext(ctx, `INSERT INTO tool_calls (id, session_id, message_id, name, status, provider_id, provider, created_at)
  VALUES (?, ?, ?, 'tool', ?, ?, ?, 1)`, id+"tc", id, id+"m", status, providerID, provider); err != nil {
			t.Fatal(err)
		}
		s, err := st.LoadSession(ctx, id, Options{})
		if err != nil {
			if !strings.Contains(err.Error(), id) {
				t.Fatalf("error does not name the session %s: %v", id, err)
			}
			return
		}
		for _, m := range s.Messages() {
			if _, _, err := encodeMessage(m); err != nil {
				t.Fatalf("loaded message does not encode for the store: %v", err)
			}
		}
		_ = s.ToolIDs().Pairs()
	})
}
