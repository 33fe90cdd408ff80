package canonical

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/messages/all_blocks.json holds every block type (a nested
// tool_result with text and an image, and an unknown "audio" block) and
// every metadata field plus two unknown ones. It decodes into the values
// written out here and re-encodes to the same canonical JSON.
func TestRoundTripEveryBlockType(t *testing.T) {
	data := readTestdata(t, "messages/all_blocks.json")
	var m Message
	require.NoError(t, json.Unmarshal(data, &m))

	conf := 0.75
	want := Message{
		ID:        "01JV3M8Z9Q4N2X7C5B6D1E0F3G",
		SessionID: "sess_42",
		Role:      RoleAssistant,
		Content: Blocks{
			TextBlock{Text: "I'll read the file."},
			ToolUseBlock{ID: tu1, Name: "read_file", Input: json.RawMessage(`{"path": "README.md", "limit": 1.50}`)},
			ToolResultBlock{ToolUseID: tu1, IsError: true, Content: Blocks{
				TextBlock{Text: "# Project Foo"},
				ImageBlock{Source: ImageSource{Kind: ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"},
			}},
			ImageBlock{Source: ImageSource{Kind: ImageURL, Data: "https://example.com/cat.png"}, MediaType: "image/png"},
			ThinkingBlock{Text: "The user wants a summary.", Signature: "EqQBCkYIARgCKkDsig=="},
			RedactedThinkingBlock{Data: "EmwKAhgBEgy3va3pzix/LafPsn4a"},
			UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type": "audio", "format": "wav", "data": "UklGRg==", "seconds": 1.50}`)},
		},
		Metadata: MessageMetadata{
			Model:    "anthropic:claude-sonnet-4-6",
			Provider: "anthropic",
			Routing: &RoutingDecisionRecord{
				Mode: RoutingDefault, ChosenModel: "anthropic:claude-sonnet-4-6", Reason: "workspace default",
				Confidence: &conf, AlternativesConsidered: []string{"openai:gpt-5"},
			},
			Usage: &Usage{
				InputTokens: 8, OutputTokens: 42, CachedInputTokens: 3, CacheCreationInputTokens: 4, ReasoningTokens: 5,
				CostUSD: decimal.RequireFromString("0.000654"), PricingVersion: "2026-05-08", LatencyMS: 820, Estimated: true,
			},
			ParentToolUseID: "tu_01JV3M8Z9Q4N2X7C5B6D1E0F3J",
			Status:          StatusComplete,
			ProviderRaw: map[string]json.RawMessage{
				"anthropic": json.RawMessage(`{"stop_reason": "tool_use", "ids": {"tu_01JV3M8Z9Q4N2X7C5B6D1E0F3H": "toolu_01ABC"}}`),
			},
			UserID: "u_1",
			TeamID: "t_1",
			Extra: map[string]json.RawMessage{
				"future_field": json.RawMessage(`{"nested": [1, 2.50, "x"]}`),
				"trace_id":     json.RawMessage(`"abc"`),
			},
		},
		CreatedAt:     time.Date(2026, 5, 8, 12, 0, 0, 123456000, time.UTC),
		SchemaVersion: 1,
	}
	// Decimal and time values compare by value, not representation.
	assert.True(t, want.Metadata.Usage.CostUSD.Equal(m.Metadata.Usage.CostUSD))
	m.Metadata.Usage.CostUSD = want.Metadata.Usage.CostUSD
	assert.True(t, want.CreatedAt.Equal(m.CreatedAt))
	m.CreatedAt = want.CreatedAt
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("decoded message (-want +got):\n%s", diff)
	}

	out, err := json.Marshal(m)
	require.NoError(t, err)
	wantCanon, err := CanonicalJSON(json.RawMessage(data))
	require.NoError(t, err)
	gotCanon, err := CanonicalJSON(json.RawMessage(out))
	require.NoError(t, err)
	assert.Equal(t, string(wantCanon), string(gotCanon))

	// The unknown block keeps its key order and number text; the unknown
	// metadata fields come back out.
	assert.Contains(t, string(out), `{"type":"audio","format":"wav","data":"UklGRg==","seconds":1.50}`)
	assert.Contains(t, string(out), `"future_field":{"nested":[1,2.50,"x"]}`)
	assert.Contains(t, string(out), `"trace_id":"abc"`)
}

// Each block type's JSON form, written by hand, decodes to its Go value
// and encodes back to exactly the same bytes.
func TestBlockJSONForms(t *testing.T) {
	tests := []struct {
		name string
		json string
		want Block
	}{
		{"text", `{"type":"text","text":"hi"}`, TextBlock{Text: "hi"}},
		{"tool_use", `{"type":"tool_use","id":"tu_1","name":"read_file","input":{"path":"a"}}`, ToolUseBlock{ID: "tu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}},
		{"tool_result", `{"type":"tool_result","tool_use_id":"tu_1","content":[{"type":"text","text":"ok"},{"type":"image","source":{"kind":"file_ref","data":"a.png"},"media_type":"image/png"}],"is_error":true}`,
			ToolResultBlock{ToolUseID: "tu_1", IsError: true, Content: Blocks{TextBlock{Text: "ok"}, ImageBlock{Source: ImageSource{Kind: ImageFileRef, Data: "a.png"}, MediaType: "image/png"}}}},
		{"tool_result empty", `{"type":"tool_result","tool_use_id":"tu_1","content":[]}`, ToolResultBlock{ToolUseID: "tu_1", Content: Blocks{}}},
		{"image", `{"type":"image","source":{"kind":"url","data":"https://x/y.png"},"media_type":"image/png"}`, ImageBlock{Source: ImageSource{Kind: ImageURL, Data: "https://x/y.png"}, MediaType: "image/png"}},
		{"thinking", `{"type":"thinking","text":"hmm","signature":"sig"}`, ThinkingBlock{Text: "hmm", Signature: "sig"}},
		{"thinking unsigned", `{"type":"thinking","text":"hmm"}`, ThinkingBlock{Text: "hmm"}},
		{"redacted_thinking", `{"type":"redacted_thinking","data":"EmwK"}`, RedactedThinkingBlock{Data: "EmwK"}},
		{"unknown, verbatim", `{"type":"audio", "z":1.50,"a":[ ]}`, UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type":"audio", "z":1.50,"a":[ ]}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := UnmarshalBlock(json.RawMessage(tt.json))
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, b); diff != "" {
				t.Errorf("decoded block (-want +got):\n%s", diff)
			}
			out, err := MarshalBlock(b)
			require.NoError(t, err)
			assert.Equal(t, tt.json, string(out))
		})
	}
}

func TestBlocksDecodeErrors(t *testing.T) {
	tests := []struct {
		name, json, wantErr string
	}{
		{"block without type", `[{"type":"text","text":"a"},{"text":"b"}]`, `content[1]: block has no "type"`},
		{"type not a string", `[{"type":7}]`, `content[0]`},
		{"wrong field type", `[{"type":"text","text":5}]`, `content[0]: text block`},
		{"not an array", `{"type":"text"}`, `cannot unmarshal`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bs Blocks
			err := json.Unmarshal([]byte(tt.json), &bs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// An unknown block type decodes, survives a full message round trip
// byte for byte, and is reported by validation (001 §10.3).
func TestUnknownBlockTolerance(t *testing.T) {
	in := `{"id":"01HZ001","session_id":"s","role":"user","content":[{"type":"text","text":"listen"},{"type":"audio","data":"UklGRg==","seconds":1.50}],"metadata":{},"created_at":"2026-05-08T12:00:00Z","schema_version":1}`
	m, err := DecodeMessage([]byte(in))
	require.NoError(t, err)
	require.Len(t, m.Content, 2)
	u, ok := m.Content[1].(UnknownBlock)
	require.True(t, ok, "got %T", m.Content[1])
	assert.Equal(t, BlockType("audio"), u.Type())

	out, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Equal(t, in, string(out))

	vs := violationsOf(t, ValidateMessage(m))
	if diff := cmp.Diff([]*Violation{{Path: "content[1]", Code: CodeUnsupportedContent, Reason: `unknown block type "audio"`}}, []*Violation(vs)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// Metadata fields this version does not know are kept and written back
// (001 §10.3), and never shadow known ones.
func TestUnknownMetadataPreserved(t *testing.T) {
	in := `{"model":"openai:gpt-5","cache_breakpoints":[3,7],"x":{"y":null}}`
	var md MessageMetadata
	require.NoError(t, json.Unmarshal([]byte(in), &md))
	assert.Equal(t, "openai:gpt-5", md.Model)
	if diff := cmp.Diff(map[string]json.RawMessage{
		"cache_breakpoints": json.RawMessage(`[3,7]`),
		"x":                 json.RawMessage(`{"y":null}`),
	}, md.Extra); diff != "" {
		t.Errorf("metadata Extra (-want +got):\n%s", diff)
	}

	out, err := json.Marshal(md)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))

	md.Extra["model"] = json.RawMessage(`"shadow"`)
	out, err = json.Marshal(md)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"model":"openai:gpt-5"`)
	assert.NotContains(t, string(out), "shadow")
}

func TestToolUseMissingInputDecodesAsEmptyObject(t *testing.T) {
	b, err := UnmarshalBlock(json.RawMessage(`{"type":"tool_use","id":"tu_1","name":"list"}`))
	require.NoError(t, err)
	if diff := cmp.Diff(json.RawMessage(`{}`), b.(ToolUseBlock).Input); diff != "" {
		t.Errorf("tool_use input (-want +got):\n%s", diff)
	}
}
