package canonical

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeMessage decodes arbitrary bytes as a stored message. It must
// never panic, and whatever decodes must survive encode → decode with the
// same canonical JSON. Validation and hashing must not panic either. Seeds
// are in testdata/fuzz/FuzzDecodeMessage and below.
func FuzzDecodeMessage(f *testing.F) {
	for _, name := range []string{"messages/all_blocks.json", "messages/reordered_a.json", "messages/v1_assistant.json"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(`{"role":"tool","content":[{"type":"tool_result","tool_use_id":"tu_1","content":[{"type":"image","source":{"kind":"url","data":"x"},"media_type":"image/png"}]}],"metadata":{"parent_tool_use_id":"tu_1"}}`))
	f.Add([]byte(`{"content":[{"type":"x"}],"metadata":{"usage":{"cost_usd":"1e-5"},"routing":{"confidence":1e308}}}`))
	f.Add([]byte(`{"created_at":"2026-05-08T12:00:00.123456789+05:30","schema_version":0}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMessage(data)
		if err != nil {
			return
		}
		_ = ValidateMessage(m)
		_ = ValidateHistory([]Message{m}, nil)
		if _, err := HashMessage(m); err != nil {
			t.Fatalf("hashing a decoded message: %v", err)
		}
		out1, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("re-encoding a decoded message: %v", err)
		}
		var m2 Message
		if err := json.Unmarshal(out1, &m2); err != nil {
			t.Fatalf("decoding our own encoding: %v\n%s", err, out1)
		}
		out2, err := json.Marshal(m2)
		if err != nil {
			t.Fatalf("re-encoding twice: %v", err)
		}
		c1, err := CanonicalJSON(json.RawMessage(out1))
		if err != nil {
			t.Fatalf("canonical JSON of our encoding: %v\n%s", err, out1)
		}
		c2, err := CanonicalJSON(json.RawMessage(out2))
		if err != nil {
			t.Fatalf("canonical JSON of our second encoding: %v\n%s", err, out2)
		}
		if string(c1) != string(c2) {
			t.Fatalf("round trip changed the message:\nfirst  %s\nsecond %s", c1, c2)
		}
	})
}

// FuzzCheckToolSchema checks arbitrary bytes as a tool input schema and
// validates an input against it: neither may panic, and a schema that
// passes the subset check must compile.
func FuzzCheckToolSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":["array","null"],"items":{"type":"string","enum":["x"]}}},"additionalProperties":false}`))
	f.Add([]byte(`{"type":"object","properties":{"p":{"$ref":"#/$defs/p"}},"$defs":{"p":{"type":"string"}}}`))
	f.Add([]byte(`{"type":"object","properties":{"n":{"type":"object","properties":{"m":{"type":"integer"}},"required":["m"]}}}`))
	f.Add([]byte(`true`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := CheckToolSchema(json.RawMessage(data))
		def := ToolDefinition{Name: "t", InputSchema: json.RawMessage(data), SideEffects: SideEffectsNone}
		inErr := ValidateToolInput(def, json.RawMessage(`{"a":["x"],"n":{"m":1}}`))
		if err == nil && CodeOf(inErr) == CodeInvalidToolSchema {
			t.Fatalf("schema passed CheckToolSchema but does not compile: %v", inErr)
		}
	})
}
