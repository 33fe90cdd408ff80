package canonical

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted at every level", json.RawMessage(`{"b":1,"a":[true,null,{"d":"x","c":2}]}`), `{"a":[true,null,{"c":2,"d":"x"}],"b":1}`},
		{"whitespace removed", json.RawMessage(" {\n\t\"a\" : [ 1 , 2 ] \r\n} "), `{"a":[1,2]}`},
		{"numbers verbatim", json.RawMessage(`[1.0,1e3,-0,1.50,12345678901234567890123]`), `[1.0,1e3,-0,1.50,12345678901234567890123]`},
		{"no HTML escaping", json.RawMessage(`"<a&b>"`), `"<a&b>"`},
		{"escapes decoded", json.RawMessage(`"\u003c\u00e9\/"`), `"<é/"`},
		{"control characters escaped", json.RawMessage(`"a\u0001\b\f\n\r\t\"\\"`), `"a\u0001\b\f\n\r\t\"\\"`},
		{"non-ASCII kept as UTF-8", json.RawMessage(`{"ключ":"値"}`), `{"ключ":"値"}`},
		{"key order is byte order", json.RawMessage(`{"b":0,"B":0,"a_":0,"a":0,"é":0}`), `{"B":0,"a":0,"a_":0,"b":0,"é":0}`},
		{"repeated key keeps the last", json.RawMessage(`{"a":1,"a":2}`), `{"a":2}`},
		{"empty containers", json.RawMessage(`{"a":{},"b":[]}`), `{"a":{},"b":[]}`},
		{"Go value", struct {
			Z string `json:"z"`
			A []int  `json:"a"`
		}{"x", []int{3}}, `{"a":[3],"z":"x"}`},
		{"map", map[string]any{"b": "<", "a": 1.5}, `{"a":1.5,"b":"<"}`},
		{"scalar", json.RawMessage(`true`), `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalJSON(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestCanonicalJSONErrors(t *testing.T) {
	for _, in := range []string{``, `{"a":`, `{} {}`, `{"a":1}x`, `nul`} {
		_, err := CanonicalJSON(json.RawMessage(in))
		assert.Error(t, err, "%q", in)
	}
	_, err := CanonicalJSON(func() {})
	assert.Error(t, err)
}

// The worked example of 001 §8.1, hashed. The canonical JSON is written
// out by hand; the hash is sha256sum of that text.
func TestHashMessageFixed(t *testing.T) {
	m := Message{
		ID:        "01HZ002",
		SessionID: "sess_42",
		Role:      RoleAssistant,
		Content:   Blocks{TextBlock{Text: "A ULID is a 128-bit identifier..."}},
		Metadata: MessageMetadata{
			Model:    "anthropic:claude-sonnet-4-6",
			Provider: "anthropic",
			Routing:  &RoutingDecisionRecord{Mode: RoutingDefault, ChosenModel: "anthropic:claude-sonnet-4-6", Reason: "workspace default"},
			Usage:    &Usage{InputTokens: 8, OutputTokens: 42, CostUSD: decimal.RequireFromString("0.000654"), PricingVersion: "2026-05-08", LatencyMS: 820},
		},
		CreatedAt:     time.Date(2026, 5, 8, 12, 0, 1, 0, time.UTC),
		SchemaVersion: 1,
	}
	const wantJSON = `{"content":[{"text":"A ULID is a 128-bit identifier...","type":"text"}],"created_at":"2026-05-08T12:00:01Z","id":"01HZ002",` +
		`"metadata":{"model":"anthropic:claude-sonnet-4-6","provider":"anthropic","routing":{"chosen_model":"anthropic:claude-sonnet-4-6","mode":"default","reason":"workspace default"},` +
		`"usage":{"cache_creation_input_tokens":0,"cached_input_tokens":0,"cost_usd":"0.000654","input_tokens":8,"latency_ms":820,"output_tokens":42,"pricing_version":"2026-05-08"}},` +
		`"role":"assistant","schema_version":1,"session_id":"sess_42"}`
	got, err := CanonicalJSON(m)
	require.NoError(t, err)
	assert.Equal(t, wantJSON, string(got))

	h, err := HashMessage(m)
	require.NoError(t, err)
	assert.Equal(t, "ff1c117c383e07b83d9651b6bddb173fc0e76685c3eccfbff5a6f8965f55aa18", h)
}

// The same message decoded from JSON with keys in another order, at every
// level (tool input, provider_raw, unknown metadata), hashes the same.
func TestHashMessageKeyOrder(t *testing.T) {
	var a, b Message
	require.NoError(t, json.Unmarshal(readTestdata(t, "messages/reordered_a.json"), &a))
	require.NoError(t, json.Unmarshal(readTestdata(t, "messages/reordered_b.json"), &b))
	ha, err := HashMessage(a)
	require.NoError(t, err)
	hb, err := HashMessage(b)
	require.NoError(t, err)
	assert.Equal(t, ha, hb)
	assert.Len(t, ha, 64)

	// Any change of content changes the hash.
	b.Content[1] = toolUse(tu1, "read_file", `{"path":"README.md","opts":{"limit":11,"offset":0}}`)
	hc, err := HashMessage(b)
	require.NoError(t, err)
	assert.NotEqual(t, ha, hc)
}

func TestHashMessageError(t *testing.T) {
	m := user("x")
	m.Content = append(m.Content, toolUse(tu1, "t", `{"bad`))
	_, err := HashMessage(m)
	assert.Error(t, err)
}
