package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

func compactFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, raw), path)
	return buf.Bytes()
}

// TestRoundTrip is 000 §10.1.1: a fixed canonical conversation is
// serialized byte for byte as testdata/roundtrip/request.golden.json, and
// the recorded answer parses to response.golden.json.
func TestRoundTrip(t *testing.T) {
	const (
		call1 = "tu_01JZ0000000000000000000001"
		call2 = "tu_01JZ0000000000000000000002"
	)
	dir := filepath.Join("testdata", "roundtrip")
	ids := adapters.NewToolIDMap()
	ids.Bind(call1, "anthropic", "toolu_rt_1")
	ids.Bind(call2, "anthropic", "toolu_rt_2")

	req := &canonical.Request{
		RequestID:       "req_roundtrip",
		Model:           testModel,
		SystemPrompt:    "You are a careful assistant.",
		MaxOutputTokens: 2048,
		Temperature:     new(0.3),
		StopSequences:   []string{"\n\nEND"},
		ToolChoice:      &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
		ToolIDs:         ids,
		Tools: []canonical.ToolDefinition{{
			Name: "read_file", Description: "Read a UTF-8 text file from the workspace.", SideEffects: canonical.SideEffectsRead,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"range":{"type":"object","properties":{"from":{"type":"integer"},"to":{"type":"integer"}}},"follow":{"type":"boolean"}},"required":["path"]}`),
		}},
		Messages: []canonical.Message{
			systemMsg("Answer in English."),
			{ID: "u1", Role: canonical.RoleUser, Content: canonical.Blocks{
				canonical.TextBlock{Text: "Read README.md and summarize it."},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"},
			}},
			{ID: "a1", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "anthropic", Model: testModel}, Content: canonical.Blocks{
				canonical.ThinkingBlock{Text: "I should read the file first.", Signature: "EqQBCkYIBxgCKkBzaWc="},
				canonical.TextBlock{Text: "Let me read it."},
				canonical.ToolUseBlock{ID: call1, Name: "read_file", Input: json.RawMessage(`{"path":"README.md","range":{"from":1,"to":40},"follow":false}`)},
			}},
			{ID: "t1", Role: canonical.RoleTool, Metadata: canonical.MessageMetadata{ParentToolUseID: call1}, Content: canonical.Blocks{
				canonical.ToolResultBlock{ToolUseID: call1, Content: canonical.Blocks{canonical.TextBlock{Text: "# Project Foo\nA tool for bar."}}},
			}},
			userText("Keep it short."),
		},
	}
	env := newEnv(t, serve(200, "application/json", compactFile(t, filepath.Join(dir, "response.json"))))
	resp, err := env.a.Complete(t.Context(), req)
	require.NoError(t, err)

	assert.Equal(t, string(compactFile(t, filepath.Join(dir, "request.golden.json"))), string(env.rawBody(t, 0)))

	resp.LatencyMS = 0
	got, err := json.Marshal(resp)
	require.NoError(t, err)
	assert.Equal(t, string(compactFile(t, filepath.Join(dir, "response.golden.json"))), string(got))
}

// TestToolSerialization is 000 §10.1.2: tool inputs of every shape go out
// unchanged and come back, streamed or not, as the same JSON.
func TestToolSerialization(t *testing.T) {
	inputs := []string{
		`{}`,
		`{"s":"text","i":42,"f":-3.5e-7,"t":true,"f2":false,"n":null}`,
		`{"nested":{"deeper":{"deepest":{"list":[1,2,3]}}}}`,
		`{"array":[{"a":1},{"b":[true,null,"x"]},[],[[]]]}`,
		`{"unicode":"żółw 🐢 \u00e9\n\t\"quoted\"","big":12345678901234567890}`,
		`{"empty_string":"","empty_object":{},"empty_array":[]}`,
	}
	for i, in := range inputs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			// canonical → wire
			id := canonical.NewToolUseID()
			req := &canonical.Request{Model: testModel, Messages: []canonical.Message{
				userText("go"),
				{ID: "a", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "anthropic"}, Content: canonical.Blocks{canonical.ToolUseBlock{ID: id, Name: "f", Input: json.RawMessage(in)}}},
				{ID: "t", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: id, Content: canonical.Blocks{canonical.TextBlock{Text: "ok"}}}}},
			}}
			body, _ := sendAndCapture(t, req)
			var msgs []struct {
				Content []struct {
					Input json.RawMessage `json:"input"`
				} `json:"content"`
			}
			require.NoError(t, json.Unmarshal(body["messages"], &msgs))
			assert.JSONEq(t, in, string(msgs[1].Content[0].Input))

			// wire → canonical, non-streamed
			resBody := `{"id":"m","type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_s","name":"f","input":` + in + `}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`
			env := newEnv(t, serve(200, "application/json", []byte(resBody)))
			resp, err := env.a.Complete(t.Context(), textRequest("go"))
			require.NoError(t, err)
			require.Len(t, resp.Content, 1)
			plain := resp.Content[0].(canonical.ToolUseBlock).Input
			assert.JSONEq(t, in, string(plain))

			// wire → canonical, streamed in 5-rune fragments
			evs := []string{evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_s","name":"f","input":{}}}`}
			runes := []rune(in) // fragments are JSON strings: split between runes
			for j := 0; j < len(runes); j += 5 {
				frag, _ := json.Marshal(string(runes[j:min(j+5, len(runes))]))
				evs = append(evs, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(frag)+`}}`)
			}
			evs = append(evs, `{"type":"content_block_stop","index":0}`, messageDelta("tool_use"), evMsgStop)
			env = newEnv(t, serve(200, "text/event-stream", sse(evs...)))
			sevs, err := adaptertest.Collect(env.a.Stream(t.Context(), textRequest("go")))
			require.NoError(t, err)
			streamed := checkInvariants(t, sevs)
			require.Len(t, streamed.Content, 1)
			assert.Equal(t, string(plain), string(streamed.Content[0].(canonical.ToolUseBlock).Input), "streamed and non-streamed inputs are identical")
			var frags string
			for _, ev := range adaptertest.EventsOf(sevs, canonical.EventToolUseInput) {
				frags += ev.PartialJSON
			}
			assert.Equal(t, in, frags, "partial_json is the raw fragments")
		})
	}
}

// TestToolIDRoundTrip is 000 §10.1.3.
func TestToolIDRoundTrip(t *testing.T) {
	ids := adapters.NewToolIDMap()

	// A provider-issued id becomes a canonical tu_ id...
	env := newEnv(t, serve(200, "application/json", []byte(`{"id":"m","type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_01ABC","name":"f","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`)))
	req := textRequest("go")
	req.ToolIDs = ids
	resp, err := env.a.Complete(t.Context(), req)
	require.NoError(t, err)
	canonicalID := resp.Content[0].(canonical.ToolUseBlock).ID
	require.True(t, canonical.IsToolUseID(canonicalID))

	// ...and goes back to the provider as its own id, in both places.
	next := &canonical.Request{Model: testModel, ToolIDs: ids, Messages: []canonical.Message{
		userText("go"),
		{ID: "a", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "anthropic"}, Content: resp.Content},
		{ID: "t", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: canonicalID, Content: canonical.Blocks{canonical.TextBlock{Text: "42"}}}}},
	}}
	body, _ := sendAndCapture(t, next)
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"go"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01ABC","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01ABC","content":"42","is_error":false}]}
	]`, string(body["messages"]))

	// A call Anthropic never saw (made on another provider) goes out under
	// its canonical id, and an echo of that id maps back to it.
	foreign := canonical.NewToolUseID()
	other := &canonical.Request{Model: testModel, ToolIDs: ids, Messages: []canonical.Message{
		userText("go"),
		{ID: "a", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "openai"}, Content: canonical.Blocks{canonical.ToolUseBlock{ID: foreign, Name: "f", Input: json.RawMessage(`{}`)}}},
		{ID: "t", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: foreign, Content: canonical.Blocks{canonical.TextBlock{Text: "42"}}}}},
	}}
	body, _ = sendAndCapture(t, other)
	assert.Contains(t, string(body["messages"]), `"id":"`+foreign+`"`)
	assert.Equal(t, foreign, ids.Canonical("anthropic", foreign))
	assert.Equal(t, canonicalID, ids.Canonical("anthropic", "toolu_01ABC"), "the mapping is stable")
}
