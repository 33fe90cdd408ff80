package bedrockconverse

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

const model = "bedrock-converse:claude-sonnet-4-5"

func user(bs ...canonical.Block) canonical.Message {
	return canonical.Message{Role: canonical.RoleUser, Content: bs}
}

func assistant(provider string, bs ...canonical.Block) canonical.Message {
	return canonical.Message{Role: canonical.RoleAssistant, Content: bs, Metadata: canonical.MessageMetadata{Provider: provider}}
}

// TestEncode: each canonical construct's Converse body, written by hand
// from the API reference.
func TestEncode(t *testing.T) {
	temp, topP := 0.5, 0.9
	png := canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}
	tests := []struct {
		name string
		req  canonical.Request
		want string
	}{{
		name: "system, inference config",
		req: canonical.Request{SystemPrompt: "Be brief.", MaxOutputTokens: 100, Temperature: &temp, TopP: &topP, StopSequences: []string{"END"},
			Messages: []canonical.Message{{Role: canonical.RoleSystem, Content: canonical.Blocks{canonical.TextBlock{Text: "And kind."}}}, user(canonical.TextBlock{Text: "hi"})}},
		want: `{"messages":[{"role":"user","content":[{"text":"hi"}]}],"system":[{"text":"Be brief.\n\nAnd kind."}],
			"inferenceConfig":{"maxTokens":100,"temperature":0.5,"topP":0.9,"stopSequences":["END"]}}`,
	}, {
		name: "image as bytes",
		req:  canonical.Request{Messages: []canonical.Message{user(canonical.TextBlock{Text: "what is it?"}, png)}},
		want: `{"messages":[{"role":"user","content":[{"text":"what is it?"},{"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}}]}]}`,
	}, {
		name: "tool round trip, results first, error status",
		req: canonical.Request{
			Tools:      []canonical.ToolDefinition{{Name: "ls", Description: "list", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "ls"},
			Messages: []canonical.Message{
				user(canonical.TextBlock{Text: "go"}),
				assistant("bedrock-converse", canonical.ToolUseBlock{ID: "tu_1", Name: "ls", Input: json.RawMessage(`{"d":"/"}`)}),
				{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_1", IsError: true, Content: canonical.Blocks{canonical.TextBlock{Text: "denied"}}}}},
				user(canonical.TextBlock{Text: "again"}),
			}},
		want: `{"messages":[{"role":"user","content":[{"text":"go"}]},
			{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"ls","input":{"d":"/"}}}]},
			{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"denied"}],"status":"error"}},{"text":"again"}]}],
			"toolConfig":{"tools":[{"toolSpec":{"name":"ls","description":"list","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"tool":{"name":"ls"}}}}`,
	}, {
		name: "tool choice any",
		req:  canonical.Request{Tools: []canonical.ToolDefinition{{Name: "ls", InputSchema: json.RawMessage(`{"type":"object"}`)}}, ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAny}, Messages: []canonical.Message{user(canonical.TextBlock{Text: "go"})}},
		want: `{"messages":[{"role":"user","content":[{"text":"go"}]}],"toolConfig":{"tools":[{"toolSpec":{"name":"ls","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"any":{}}}}`,
	}, {
		name: "tool choice none without tool history sends no tools",
		req:  canonical.Request{Tools: []canonical.ToolDefinition{{Name: "ls", InputSchema: json.RawMessage(`{"type":"object"}`)}}, ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceNone}, Messages: []canonical.Message{user(canonical.TextBlock{Text: "go"})}},
		want: `{"messages":[{"role":"user","content":[{"text":"go"}]}]}`,
	}, {
		name: "thinking: budget by effort, maxTokens raised",
		req:  canonical.Request{Thinking: &canonical.ThinkingConfig{Effort: "medium"}, Messages: []canonical.Message{user(canonical.TextBlock{Text: "think"})}},
		want: `{"messages":[{"role":"user","content":[{"text":"think"}]}],"inferenceConfig":{"maxTokens":8192},
			"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":4096}}}`,
	}, {
		name: "thinking: budget kept under maxTokens",
		req:  canonical.Request{MaxOutputTokens: 2000, Thinking: &canonical.ThinkingConfig{BudgetTokens: 5000}, Messages: []canonical.Message{user(canonical.TextBlock{Text: "think"})}},
		want: `{"messages":[{"role":"user","content":[{"text":"think"}]}],"inferenceConfig":{"maxTokens":2000},
			"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1999}}}`,
	}, {
		name: "own reasoning and redacted reasoning go back; foreign reasoning is dropped",
		req: canonical.Request{Messages: []canonical.Message{
			user(canonical.TextBlock{Text: "a"}),
			assistant("bedrock-converse", canonical.ThinkingBlock{Text: "hmm", Signature: "sig1"}, canonical.RedactedThinkingBlock{Data: "cmVk"}, canonical.TextBlock{Text: "b"}),
			user(canonical.TextBlock{Text: "c"}),
			assistant("anthropic", canonical.ThinkingBlock{Text: "other", Signature: "sig2"}, canonical.TextBlock{Text: "d"}),
			user(canonical.TextBlock{Text: "e"}),
		}},
		want: `{"messages":[{"role":"user","content":[{"text":"a"}]},
			{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"hmm","signature":"sig1"}}},{"reasoningContent":{"redactedContent":"cmVk"}},{"text":"b"}]},
			{"role":"user","content":[{"text":"c"}]},
			{"role":"assistant","content":[{"text":"d"}]},
			{"role":"user","content":[{"text":"e"}]}]}`,
	}, {
		name: "URL image is dropped",
		req: canonical.Request{Messages: []canonical.Message{
			user(canonical.TextBlock{Text: "a"}, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://x/y.png"}, MediaType: "image/png"}),
		}},
		want: `{"messages":[{"role":"user","content":[{"text":"a"}]}]}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids := adapters.NewToolIDMap()
			// The id the provider issued for tu_1, as a real round trip has it.
			ids.Canonical("bedrock-converse", "tooluse_1")
			req := tc.req
			req.Model = model
			req.ToolIDs = &fixedIDs{ToolIDMap: ids, wire: map[string]string{"tu_1": "tooluse_1"}}
			w, err := newAdapter(t, "", "us-east-1", model, claude).Encode(&req, false)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(w.Body))
			assert.Equal(t, "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse", w.URL)
		})
	}
}

// fixedIDs maps the canonical ids of wire to the given provider ids.
type fixedIDs struct {
	canonical.ToolIDMap
	wire map[string]string
}

func (f *fixedIDs) Wire(provider, id string) string {
	if w, ok := f.wire[id]; ok {
		return w
	}
	return f.ToolIDMap.Wire(provider, id)
}

func TestEncodeThinkingNoRoom(t *testing.T) {
	req := ask(model, "x")
	req.MaxOutputTokens = 500
	req.Thinking = &canonical.ThinkingConfig{BudgetTokens: 2000}
	_, err := newAdapter(t, "", "us-east-1", model, claude).Encode(req, false)
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
	assert.Contains(t, ae.Message, "max_output_tokens 500")
}

func TestNewNeedsRegion(t *testing.T) {
	_, err := New(adapters.Config{Getenv: func(string) string { return "" }, APIKey: "k"})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
}
