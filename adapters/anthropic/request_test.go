package anthropic

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// okBody is a minimal non-streamed answer.
var okBody = []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":2}}`)

// sendAndCapture completes req against a server answering okBody and
// returns the wire body sent and the test env.
func sendAndCapture(t *testing.T, req *canonical.Request, mods ...func(*adapters.Config)) (map[string]json.RawMessage, *testEnv) {
	t.Helper()
	env := newEnv(t, serve(200, "application/json", okBody), mods...)
	_, err := env.a.Complete(t.Context(), req)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(env.rawBody(t, 0), &m))
	return m, env
}

// warnings returns the lossy-projection WARN entries logged.
func warnings(t *testing.T, env *testEnv) []map[string]any {
	var out []map[string]any
	for _, e := range env.logs.entries(t) {
		if e["level"] == "WARN" && e["msg"] == driver.LossyProjectionMsg {
			out = append(out, e)
		}
	}
	return out
}

func systemMsg(text string) canonical.Message {
	return canonical.Message{ID: canonical.NewMessageID(), Role: canonical.RoleSystem, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func TestSystemPlacement(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		system []string
		cache  bool
		want   string // the system field; "" means absent
	}{
		{name: "none", want: ""},
		{name: "request prompt", prompt: "Be brief.", want: `"Be brief."`},
		{name: "one system message", system: []string{"You are terse."}, want: `"You are terse."`},
		{name: "several joined", prompt: "Be brief.", system: []string{"You are terse.", "Answer in French."}, want: `"Be brief.\n\nYou are terse.\n\nAnswer in French."`},
		{name: "empty system message skipped", prompt: "Be brief.", system: []string{""}, want: `"Be brief."`},
		{name: "cached", prompt: "Be brief.", cache: true, want: `[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &canonical.Request{Model: testModel, SystemPrompt: tt.prompt}
			for _, s := range tt.system {
				req.Messages = append(req.Messages, systemMsg(s))
			}
			req.Messages = append(req.Messages, userText("hi"))
			body, _ := sendAndCapture(t, req, func(c *adapters.Config) { c.Options = map[string]any{"cache": tt.cache} })
			if tt.want == "" {
				assert.NotContains(t, body, "system")
			} else {
				assert.JSONEq(t, tt.want, string(body["system"]))
			}
			var msgs []map[string]any
			require.NoError(t, json.Unmarshal(body["messages"], &msgs))
			for _, m := range msgs {
				assert.NotEqual(t, "system", m["role"], "SYSTEM messages are hoisted out of the list")
			}
		})
	}
}

func TestCacheControlOnLastTool(t *testing.T) {
	req := textRequest("hi")
	req.Tools = []canonical.ToolDefinition{
		{Name: "a", Description: "A", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
		{Name: "b", Description: "B", InputSchema: json.RawMessage(`{"type":"object","properties":{"y":{"type":"string"}}}`)},
	}
	body, _ := sendAndCapture(t, req, func(c *adapters.Config) { c.Options = map[string]any{"cache": true} })
	assert.JSONEq(t, `[
		{"name":"a","description":"A","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}},
		{"name":"b","description":"B","input_schema":{"type":"object","properties":{"y":{"type":"string"}}},"cache_control":{"type":"ephemeral"}}
	]`, string(body["tools"]))
}

// toolTurn returns a history in which the assistant called tools with the
// given canonical ids and each was answered.
func toolTurn(ids ...string) []canonical.Message {
	msgs := []canonical.Message{userText("do it")}
	asst := canonical.Message{ID: "a1", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "anthropic"}}
	for _, id := range ids {
		asst.Content = append(asst.Content, canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)})
	}
	msgs = append(msgs, asst)
	for _, id := range ids {
		msgs = append(msgs, canonical.Message{ID: "t-" + id, Role: canonical.RoleTool, Metadata: canonical.MessageMetadata{ParentToolUseID: id}, Content: canonical.Blocks{
			canonical.ToolResultBlock{ToolUseID: id, Content: canonical.Blocks{canonical.TextBlock{Text: "# Project"}}},
		}})
	}
	return msgs
}

func TestRolesAlternate(t *testing.T) {
	id1, id2 := canonical.NewToolUseID(), canonical.NewToolUseID()
	req := &canonical.Request{Model: testModel, Messages: append(toolTurn(id1, id2), userText("and the LICENSE?"))}
	req.Messages[3].Content = canonical.Blocks{canonical.ToolResultBlock{ToolUseID: id2, IsError: true, Content: canonical.Blocks{
		canonical.TextBlock{Text: "Error: not found"},
		canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"},
	}}}
	body, _ := sendAndCapture(t, req)
	// A canonical id the provider never saw goes out as itself.
	want := `[
		{"role":"user","content":[{"type":"text","text":"do it"}]},
		{"role":"assistant","content":[
			{"type":"tool_use","id":"` + id1 + `","name":"read_file","input":{"path":"README.md"}},
			{"type":"tool_use","id":"` + id2 + `","name":"read_file","input":{"path":"README.md"}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"` + id1 + `","content":"# Project","is_error":false},
			{"type":"tool_result","tool_use_id":"` + id2 + `","is_error":true,"content":[
				{"type":"text","text":"Error: not found"},
				{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},
			{"type":"text","text":"and the LICENSE?"}]}
	]`
	assert.JSONEq(t, want, string(body["messages"]))
}

func TestToolResultsFirst(t *testing.T) {
	c := []wireContent{{Type: "text", Text: "a"}, {Type: "tool_result", ToolUseID: "1"}, {Type: "image"}, {Type: "tool_result", ToolUseID: "2"}}
	toolResultsFirst(c)
	var got []string
	for _, b := range c {
		got = append(got, b.Type+b.Text+b.ToolUseID)
	}
	if diff := cmp.Diff([]string{"tool_result1", "tool_result2", "texta", "image"}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestLossyProjection(t *testing.T) {
	img := func(kind, data, mt string) canonical.ImageBlock {
		return canonical.ImageBlock{Source: canonical.ImageSource{Kind: kind, Data: data}, MediaType: mt}
	}
	tests := []struct {
		name      string
		model     string
		user      canonical.Blocks // extra blocks in the user turn
		assistant canonical.Blocks // an assistant turn before the last user turn
		provider  string           // the assistant turn's provider
		wantUser  string           // wire content of the first user message
		wantAsst  string           // wire content of the assistant message ("" = dropped)
		dropped   []string         // block types of the WARN entries
	}{
		{
			name: "base64 and url images kept", user: canonical.Blocks{img(canonical.ImageBase64, "AAAA", "image/webp"), img(canonical.ImageURL, "https://example.com/a.jpg", "image/jpeg")},
			wantUser: `[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/webp","data":"AAAA"}},{"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}}]`,
		},
		{
			name: "file_ref image dropped", user: canonical.Blocks{img(canonical.ImageFileRef, "file_123", "image/png")},
			wantUser: `[{"type":"text","text":"look"}]`, dropped: []string{"image"},
		},
		{
			name: "unaccepted media type dropped", user: canonical.Blocks{img(canonical.ImageBase64, "AAAA", "image/bmp")},
			wantUser: `[{"type":"text","text":"look"}]`, dropped: []string{"image"},
		},
		{
			name: "images dropped for a model without vision", model: "anthropic:claude-2.1", user: canonical.Blocks{img(canonical.ImageBase64, "AAAA", "image/png")},
			wantUser: `[{"type":"text","text":"look"}]`, dropped: []string{"image"},
		},
		{
			name: "own signed thinking sent back", provider: "anthropic",
			assistant: canonical.Blocks{canonical.ThinkingBlock{Text: "hmm", Signature: "sig=="}, canonical.TextBlock{Text: "done"}},
			wantAsst:  `[{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"text","text":"done"}]`,
		},
		{
			name: "own signed thinking with omitted text keeps the field", provider: "anthropic",
			assistant: canonical.Blocks{canonical.ThinkingBlock{Signature: "sig=="}, canonical.TextBlock{Text: "done"}},
			wantAsst:  `[{"type":"thinking","thinking":"","signature":"sig=="},{"type":"text","text":"done"}]`,
		},
		{
			name: "unsigned thinking dropped", provider: "anthropic",
			assistant: canonical.Blocks{canonical.ThinkingBlock{Text: "hmm"}, canonical.TextBlock{Text: "done"}},
			wantAsst:  `[{"type":"text","text":"done"}]`, dropped: []string{"thinking"},
		},
		{
			name: "foreign thinking dropped", provider: "openai",
			assistant: canonical.Blocks{canonical.ThinkingBlock{Text: "hmm", Signature: "gAAAA-encrypted"}, canonical.RedactedThinkingBlock{Data: "xyz"}, canonical.TextBlock{Text: "done"}},
			wantAsst:  `[{"type":"text","text":"done"}]`, dropped: []string{"thinking", "redacted_thinking"},
		},
		{
			name: "own redacted thinking sent back", provider: "anthropic",
			assistant: canonical.Blocks{canonical.RedactedThinkingBlock{Data: "xyz"}, canonical.TextBlock{Text: "done"}},
			wantAsst:  `[{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"done"}]`,
		},
		{
			name: "unanswered tool_use of a cancelled turn dropped", provider: "anthropic",
			assistant: canonical.Blocks{canonical.TextBlock{Text: "let me look"}, canonical.ToolUseBlock{ID: canonical.NewToolUseID(), Name: "read_file", Input: json.RawMessage(`{}`)}},
			wantAsst:  `[{"type":"text","text":"let me look"}]`, dropped: []string{"tool_use"},
		},
		{
			name: "assistant left empty is skipped", provider: "openai",
			assistant: canonical.Blocks{canonical.ThinkingBlock{Text: "hmm", Signature: "x"}},
			wantAsst:  "", dropped: []string{"thinking"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := tt.model
			if model == "" {
				model = testModel
			}
			first := canonical.Message{ID: "u1", SessionID: "s1", Role: canonical.RoleUser, Content: append(canonical.Blocks{canonical.TextBlock{Text: "look"}}, tt.user...)}
			req := &canonical.Request{Model: model, Messages: []canonical.Message{first}}
			if tt.assistant != nil {
				req.Messages = append(req.Messages,
					canonical.Message{ID: "a1", SessionID: "s1", Role: canonical.RoleAssistant, Content: tt.assistant, Metadata: canonical.MessageMetadata{Provider: tt.provider, Status: canonical.StatusCancelled}},
					userText("go on"))
			}
			body, env := sendAndCapture(t, req)
			var msgs []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			require.NoError(t, json.Unmarshal(body["messages"], &msgs))
			require.NotEmpty(t, msgs)
			if tt.wantUser != "" {
				assert.JSONEq(t, tt.wantUser, string(msgs[0].Content))
			}
			if tt.assistant != nil {
				if tt.wantAsst == "" {
					require.Len(t, msgs, 1, "the emptied assistant turn is skipped and the user turns merge")
					assert.JSONEq(t, `[{"type":"text","text":"look"},{"type":"text","text":"go on"}]`, string(msgs[0].Content))
				} else {
					require.Len(t, msgs, 3)
					assert.Equal(t, "assistant", msgs[1].Role)
					assert.JSONEq(t, tt.wantAsst, string(msgs[1].Content))
				}
			}
			ws := warnings(t, env)
			require.Len(t, ws, len(tt.dropped))
			for i, w := range ws {
				assert.Equal(t, tt.dropped[i], w["block_type"])
				assert.Equal(t, "anthropic", w["adapter"])
				assert.Equal(t, "s1", w["session_id"])
				assert.NotEmpty(t, w["message_id"])
				assert.NotEmpty(t, w["reason"])
			}
		})
	}
}

func TestToolChoice(t *testing.T) {
	tests := []struct {
		choice *canonical.ToolChoice
		want   string // "" = absent
	}{
		{nil, ""},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}, `{"type":"auto"}`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceAny}, `{"type":"any"}`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "read_file"}, `{"type":"tool","name":"read_file"}`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceNone}, `{"type":"none"}`},
	}
	for _, tt := range tests {
		name := "unset"
		if tt.choice != nil {
			name = string(tt.choice.Mode)
		}
		t.Run(name, func(t *testing.T) {
			req := textRequest("hi")
			req.Tools = []canonical.ToolDefinition{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
			req.ToolChoice = tt.choice
			body, _ := sendAndCapture(t, req)
			if tt.want == "" {
				assert.NotContains(t, body, "tool_choice")
			} else {
				assert.JSONEq(t, tt.want, string(body["tool_choice"]))
			}
			assert.JSONEq(t, `[{"name":"read_file","description":"Read a file.","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`, string(body["tools"]),
				"tools stay defined even for none")
		})
	}
	t.Run("no tools", func(t *testing.T) {
		req := textRequest("hi")
		req.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceNone}
		body, _ := sendAndCapture(t, req)
		assert.NotContains(t, body, "tool_choice")
		assert.NotContains(t, body, "tools")
	})
}

func TestThinkingConfig(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		thinking  *canonical.ThinkingConfig
		maxTokens int
		wantMax   int
		want      string // thinking field; "" = absent
		wantErr   bool
		// output_config field; "" = absent
		wantOutput string
	}{
		{name: "off", thinking: nil, wantMax: 4096},
		{name: "default budget", model: budgetModel, thinking: &canonical.ThinkingConfig{}, wantMax: 4096, want: `{"type":"enabled","budget_tokens":1024}`},
		{name: "explicit budget", thinking: &canonical.ThinkingConfig{BudgetTokens: 3000}, maxTokens: 8000, wantMax: 8000, want: `{"type":"enabled","budget_tokens":3000}`},
		{name: "raised to the minimum", thinking: &canonical.ThinkingConfig{BudgetTokens: 100}, wantMax: 4096, want: `{"type":"enabled","budget_tokens":1024}`},
		{name: "effort high grows default max", model: budgetModel, thinking: &canonical.ThinkingConfig{Effort: "high"}, wantMax: 16384 + 4096, want: `{"type":"enabled","budget_tokens":16384}`},
		{name: "effort medium", model: budgetModel, thinking: &canonical.ThinkingConfig{Effort: "medium"}, wantMax: 4096 + 4096, want: `{"type":"enabled","budget_tokens":4096}`},
		{name: "shrunk below explicit max", thinking: &canonical.ThinkingConfig{BudgetTokens: 5000}, maxTokens: 3000, wantMax: 3000, want: `{"type":"enabled","budget_tokens":2999}`},
		{name: "no room", model: budgetModel, thinking: &canonical.ThinkingConfig{}, maxTokens: 1000, wantErr: true},
		// Claude 4.6 takes adaptive thinking, guided by output_config.effort,
		// when no budget is given; Opus 4.7 takes nothing else.
		{name: "adaptive on 4.6", thinking: &canonical.ThinkingConfig{}, wantMax: 4096, want: `{"type":"adaptive"}`},
		{name: "adaptive with effort", thinking: &canonical.ThinkingConfig{Effort: "high"}, maxTokens: 1000, wantMax: 1000,
			want: `{"type":"adaptive"}`, wantOutput: `{"effort":"high"}`},
		{name: "adaptive only on opus 4.7", model: "anthropic:claude-opus-4-7", thinking: &canonical.ThinkingConfig{BudgetTokens: 3000, Effort: "low"}, wantMax: 4096,
			want: `{"type":"adaptive"}`, wantOutput: `{"effort":"low"}`},
		{name: "ignored for a model that cannot think", model: "anthropic:claude-2.1", thinking: &canonical.ThinkingConfig{BudgetTokens: 2000}, wantMax: 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := textRequest("hi")
			if tt.model != "" {
				req.Model = tt.model
			}
			req.Thinking, req.MaxOutputTokens = tt.thinking, tt.maxTokens
			if tt.wantErr {
				env := newEnv(t, serve(200, "application/json", okBody))
				_, err := env.a.Complete(t.Context(), req)
				assert.Equal(t, canonical.ErrInvalidRequest, canonical.ClassOf(err))
				assert.Zero(t, env.requests(), "rejected before the wire")
				return
			}
			body, _ := sendAndCapture(t, req)
			assert.JSONEq(t, jsonInt(tt.wantMax), string(body["max_tokens"]))
			if tt.want == "" {
				assert.NotContains(t, body, "thinking")
			} else {
				assert.JSONEq(t, tt.want, string(body["thinking"]))
			}
			if tt.wantOutput == "" {
				assert.NotContains(t, body, "output_config")
			} else {
				assert.JSONEq(t, tt.wantOutput, string(body["output_config"]))
			}
		})
	}
}

// budgetModel is a Claude 4 model without adaptive thinking.
const budgetModel = "anthropic:claude-sonnet-4-5"

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestSamplingParameters(t *testing.T) {
	req := textRequest("hi")
	req.MaxOutputTokens = 512
	req.Temperature = new(0.2)
	req.TopP = new(0.9)
	req.StopSequences = []string{"\n\nHuman:", "END"}
	req.Seed = new(int64(7))
	body, _ := sendAndCapture(t, req)
	assert.JSONEq(t, `512`, string(body["max_tokens"]))
	assert.JSONEq(t, `0.2`, string(body["temperature"]))
	assert.JSONEq(t, `0.9`, string(body["top_p"]))
	assert.JSONEq(t, `["\n\nHuman:","END"]`, string(body["stop_sequences"]))
	assert.JSONEq(t, `"claude-sonnet-4-6"`, string(body["model"]))
	assert.JSONEq(t, `false`, string(body["stream"]))
	assert.NotContains(t, body, "seed", "the Messages API has no seed")
}

func TestWireModelFromRegistry(t *testing.T) {
	req := textRequest("hi")
	req.Model = "anthropic:sonnet-latest"
	body, _ := sendAndCapture(t, req, func(c *adapters.Config) {
		c.Models = map[string]adapters.ModelConfig{"anthropic:sonnet-latest": {WireName: "claude-sonnet-4-6-20260101"}}
	})
	assert.JSONEq(t, `"claude-sonnet-4-6-20260101"`, string(body["model"]))
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		name string
		beta any
		want string
	}{
		{"no beta", nil, ""},
		{"string", "prompt-caching-2024-07-31", "prompt-caching-2024-07-31"},
		{"list", []any{"a-2025", "b-2026"}, "a-2025,b-2026"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path string
			env := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
				path = r.URL.Path
				serve(200, "application/json", okBody)(w, r)
			}, func(c *adapters.Config) {
				c.Options = map[string]any{"beta": tt.beta}
				c.ExtraHeaders = map[string]string{"X-Trace": "t-1"}
			})
			_, err := env.a.Complete(t.Context(), textRequest("hi"))
			require.NoError(t, err)
			h := env.hdrs[0]
			assert.Equal(t, "/v1/messages", path)
			assert.Equal(t, "sk-test-FAKE", h.Get("x-api-key"))
			assert.Equal(t, "2023-06-01", h.Get("anthropic-version"))
			assert.Equal(t, "application/json", h.Get("content-type"))
			assert.Equal(t, tt.want, h.Get("anthropic-beta"))
			assert.Equal(t, "t-1", h.Get("X-Trace"))
			assert.Empty(t, h.Get("Authorization"))
		})
	}
}

func TestNewRequiresKey(t *testing.T) {
	_, err := New(adapters.Config{APIKeyEnv: "ANTHROPIC_API_KEY"})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Contains(t, ae.Message, "ANTHROPIC_API_KEY")
}

func TestInvalidHistoryRejectedBeforeTheWire(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", okBody))
	req := &canonical.Request{Model: testModel, Messages: []canonical.Message{
		userText("hi"),
		{ID: "t1", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: canonical.NewToolUseID(), Content: canonical.Blocks{canonical.TextBlock{Text: "x"}}}}},
	}}
	_, err := env.a.Complete(t.Context(), req)
	assert.Equal(t, canonical.ErrInvalidRequest, canonical.ClassOf(err))
	_, err = adaptertest.Collect(env.a.Stream(t.Context(), req))
	assert.Equal(t, canonical.ErrInvalidRequest, canonical.ClassOf(err))
	assert.Zero(t, env.requests())
}
