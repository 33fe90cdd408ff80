package openai

import (
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

func msg(id string, role canonical.Role, blocks ...canonical.Block) canonical.Message {
	return canonical.Message{ID: id, SessionID: "ses_1", Role: role, Content: blocks}
}

func text(s string) canonical.TextBlock { return canonical.TextBlock{Text: s} }

func testConfig() *adapters.Config {
	return &adapters.Config{Name: "openai", APIKey: "sk-test-FAKE", Models: map[string]adapters.ModelConfig{
		"openai:gpt-4.1": {WireName: "gpt-4.1", Options: map[string]any{"dialect": "chat"}},
	}}
}

var capitalSchema = json.RawMessage(`{"type":"object","properties":{"country":{"type":"string"}},"required":["country"],"additionalProperties":false}`)

// TestChatRequestGolden is the wire half of 000 §10.1 check 1: a fixed
// canonical conversation serialises to the hand-written body in
// testdata/chat_request.json.
// goldenChatRequest is the canonical side of testdata/chat_request.json.
func goldenChatRequest() *canonical.Request {
	ids := adapters.NewToolIDMap()
	ids.Bind("tu_01J0000000000000000000000A", "openai", "call_abc")
	temp := 0.2
	return &canonical.Request{
		RequestID:    "req_test",
		Model:        "openai:gpt-4.1",
		SystemPrompt: "You are terse.",
		Messages: []canonical.Message{
			msg("m0", canonical.RoleSystem, text("Answer in English.")),
			msg("m1", canonical.RoleUser, text("What is the capital of France?"),
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}),
			msg("m2", canonical.RoleAssistant, canonical.ThinkingBlock{Text: "hmm", Signature: "sig"}, text("Let me look."),
				canonical.ToolUseBlock{ID: "tu_01J0000000000000000000000A", Name: "get_capital", Input: json.RawMessage(`{"country":"France"}`)}),
			msg("m3", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: "tu_01J0000000000000000000000A", Content: canonical.Blocks{text("Paris")}}),
			msg("m4", canonical.RoleAssistant, text("Paris.")),
			msg("m5", canonical.RoleUser, text("And Germany?")),
		},
		Tools:           []canonical.ToolDefinition{{Name: "get_capital", Description: "Capital of a country.", InputSchema: capitalSchema}},
		ToolChoice:      &canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "get_capital"},
		MaxOutputTokens: 512,
		StopSequences:   []string{"END"},
		Temperature:     &temp,
		Stream:          true,
		ToolIDs:         ids,
	}
}

func TestChatRequestGolden(t *testing.T) {
	req := goldenChatRequest()
	d := ChatDialect{Provider: "openai", StreamOptions: true}
	body, err := d.BuildRequest(buildCall(req, testConfig(), slog.New(&logRecorder{})))
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/chat_request.json")
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(body))
}

// TestChatSystemPlacement is 000 §10.1 check 4.
func TestChatSystemPlacement(t *testing.T) {
	tests := []struct {
		name      string
		prompt    string
		system    []string
		developer bool
		option    any
		wantRole  string
		wantText  string // "" = no system message
	}{
		{name: "none", wantText: ""},
		{name: "empty SYSTEM message", system: []string{""}, wantText: ""},
		{name: "prompt only", prompt: "P", wantRole: "system", wantText: "P"},
		{name: "single SYSTEM", system: []string{"S1"}, wantRole: "system", wantText: "S1"},
		{name: "prompt then multiple SYSTEMs", prompt: "P", system: []string{"S1", "S2"}, wantRole: "system", wantText: "P\n\nS1\n\nS2"},
		{name: "developer role", prompt: "P", developer: true, wantRole: "developer", wantText: "P"},
		{name: "option turns developer on", prompt: "P", option: true, wantRole: "developer", wantText: "P"},
		{name: "option turns developer off", prompt: "P", developer: true, option: false, wantRole: "system", wantText: "P"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &canonical.Request{Model: "openai:gpt-4.1", SystemPrompt: tc.prompt}
			for i, s := range tc.system {
				req.Messages = append(req.Messages, msg("s"+string(rune('0'+i)), canonical.RoleSystem, text(s)))
			}
			req.Messages = append(req.Messages, msg("u", canonical.RoleUser, text("hi")))
			var body []byte
			if tc.option != nil {
				// The option goes through the adapter, which decodes it.
				cfg := testConfig()
				cfg.Options = map[string]any{"developer_role": tc.option}
				body = encodeWith(t, cfg, req)
			} else {
				var err error
				body, err = ChatDialect{Provider: "openai", DeveloperRole: tc.developer}.BuildRequest(buildCall(req, testConfig(), nil))
				require.NoError(t, err)
			}
			m := decodeJSON(t, body)
			msgs := jsonPath(t, m, "messages").([]any)
			if tc.wantText == "" {
				require.Len(t, msgs, 1)
				assert.Equal(t, "user", jsonPath(t, msgs, 0, "role"))
				return
			}
			require.Len(t, msgs, 2)
			assert.Equal(t, tc.wantRole, jsonPath(t, msgs, 0, "role"))
			assert.Equal(t, tc.wantText, jsonPath(t, msgs, 0, "content"))
		})
	}
}

// TestChatThinkingDroppedWithWarn checks the lossy projection of 000 §4.3
// and 001 §7.3: thinking never reaches Chat Completions, and each dropped
// block writes one WARN with the five fields.
func TestChatThinkingDroppedWithWarn(t *testing.T) {
	rec := &logRecorder{}
	req := &canonical.Request{Model: "openai:gpt-4.1", SessionID: "ses_1", Messages: []canonical.Message{
		msg("u1", canonical.RoleUser, text("q")),
		msg("a1", canonical.RoleAssistant, canonical.ThinkingBlock{Text: "secret", Signature: "s"}, canonical.RedactedThinkingBlock{Data: "x"}, text("answer")),
	}}
	body, err := ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), slog.New(rec)))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "secret")
	assert.JSONEq(t, `[{"role":"user","content":"q"},{"role":"assistant","content":"answer"}]`, string(mustJSON(t, jsonPath(t, decodeJSON(t, body), "messages"))))
	w := rec.warnings()
	require.Len(t, w, 2)
	for i, bt := range []string{"thinking", "redacted_thinking"} {
		assert.Equal(t, driver.LossyProjectionMsg, w[i]["msg"])
		assert.Equal(t, "ses_1", w[i]["session_id"])
		assert.Equal(t, "a1", w[i]["message_id"])
		assert.Equal(t, bt, w[i]["block_type"])
		assert.Equal(t, "openai", w[i]["adapter"])
		assert.NotEmpty(t, w[i]["reason"])
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestChatToolChoiceAndOptions(t *testing.T) {
	tools := []canonical.ToolDefinition{{Name: "f", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), Strict: true}}
	tests := []struct {
		choice *canonical.ToolChoice
		want   string
	}{
		{nil, `null`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}, `"auto"`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceAny}, `"required"`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceNone}, `"none"`},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "f"}, `{"type":"function","function":{"name":"f"}}`},
	}
	for _, tc := range tests {
		req := &canonical.Request{Model: "openai:gpt-4.1", Tools: tools, ToolChoice: tc.choice,
			Messages: []canonical.Message{msg("u", canonical.RoleUser, text("x"))}}
		no := false
		body, err := ChatDialect{Provider: "openai", MaxTokensField: "max_tokens", ParallelToolCalls: &no}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		m := decodeJSON(t, body)
		assert.JSONEq(t, tc.want, string(mustJSON(t, m["tool_choice"])))
		assert.Equal(t, false, m["parallel_tool_calls"])
		assert.Equal(t, true, jsonPath(t, m, "tools", 0, "function", "strict"))
		assert.JSONEq(t, `{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"],"additionalProperties":false}`,
			string(mustJSON(t, jsonPath(t, m, "tools", 0, "function", "parameters"))))
	}

	// NoStrict servers get neither the field nor the transform; the
	// max_tokens knob renames the cap; structured output is json_schema.
	req := &canonical.Request{Model: "openai:gpt-4.1", Tools: tools, MaxOutputTokens: 7, Seed: new(int64),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`),
		Messages:     []canonical.Message{msg("u", canonical.RoleUser, text("x"))}}
	body, err := ChatDialect{Provider: "vllm", NoStrict: true, MaxTokensField: "max_tokens"}.BuildRequest(buildCall(req, testConfig(), nil))
	require.NoError(t, err)
	m := decodeJSON(t, body)
	assert.NotContains(t, jsonPath(t, m, "tools", 0, "function").(map[string]any), "strict")
	assert.Equal(t, float64(7), m["max_tokens"])
	assert.NotContains(t, m, "max_completion_tokens")
	assert.NotContains(t, m, "tool_choice")
	assert.Equal(t, float64(0), m["seed"])
	assert.JSONEq(t, `{"type":"json_schema","json_schema":{"name":"output","schema":{"type":"object","properties":{"x":{"type":"integer"}}},"strict":false}}`,
		string(mustJSON(t, m["response_format"])))

	body, err = ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"json_schema","json_schema":{"name":"output","schema":{"type":"object","properties":{"x":{"type":["integer","null"]}},"required":["x"],"additionalProperties":false},"strict":true}}`,
		string(mustJSON(t, decodeJSON(t, body)["response_format"])))
}

func TestChatToolResultsAsUserAndErrors(t *testing.T) {
	req := &canonical.Request{Model: "openai:gpt-4.1", Messages: []canonical.Message{
		msg("t", canonical.RoleTool,
			canonical.ToolResultBlock{ToolUseID: "tu_A", Content: canonical.Blocks{text("line 1"), text("line 2")}},
			canonical.ToolResultBlock{ToolUseID: "tu_B", Content: canonical.Blocks{text("File not found")}, IsError: true}),
	}}
	body, err := ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"tool","tool_call_id":"tu_A","content":"line 1\nline 2"},{"role":"tool","tool_call_id":"tu_B","content":"Error: File not found"}]`,
		string(mustJSON(t, decodeJSON(t, body)["messages"])))

	body, err = ChatDialect{Provider: "openai", ToolResultsAsUser: true}.BuildRequest(buildCall(req, testConfig(), nil))
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"user","content":"Result of tool call tu_A:\nline 1\nline 2\n\nResult of tool call tu_B:\nError: File not found"}]`,
		string(mustJSON(t, decodeJSON(t, body)["messages"])))
}

func TestChatRequestErrors(t *testing.T) {
	bad := []*canonical.Request{
		{Model: "openai:gpt-4.1", Tools: []canonical.ToolDefinition{{Name: "f", Strict: true, InputSchema: json.RawMessage(`{"type":"string"}`)}}},
		{Model: "openai:gpt-4.1", Messages: []canonical.Message{msg("a", canonical.RoleAssistant, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage(`{"a":`)})}},
		{Model: "openai:gpt-4.1", Messages: []canonical.Message{msg("x", "robot", text("hi"))}},
	}
	codes := []string{canonical.CodeInvalidToolSchema, canonical.CodeToolInputInvalid, canonical.CodeInvalidHistory}
	for i, req := range bad {
		_, err := ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae, "case %d", i)
		assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
		assert.Equal(t, codes[i], ae.Code)
	}
}

// TestChatFixtureRequests maps canonical requests equivalent to recorded
// ones and compares the parts that matter with the recordings.
func TestChatFixtureRequests(t *testing.T) {
	t.Run("nonstream-tool-call history", func(t *testing.T) {
		recorded := decodeJSON(t, fixture(t, "openai-chat", "nonstream-tool-call", "request.json"))
		ids := adapters.NewToolIDMap()
		ids.Bind("tu_01J0000000000000000000000B", "openai", "pyd_ai_504f8147f83f44f3a5f14d87bfd01bda")
		req := &canonical.Request{Model: "openai:gpt-4o-mini", ToolIDs: ids,
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
			Tools: []canonical.ToolDefinition{{Name: "get_capital", Description: "Get the capital of a country.",
				InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"country":{"description":"The country name.","type":"string"}},"required":["country"],"type":"object"}`)}},
			Messages: []canonical.Message{
				msg("1", canonical.RoleUser, text("What is the capital of France?")),
				msg("2", canonical.RoleAssistant, canonical.ToolUseBlock{ID: "tu_01J0000000000000000000000B", Name: "get_capital", Input: json.RawMessage(`{"country":"France"}`)}),
				msg("3", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: "tu_01J0000000000000000000000B", Content: canonical.Blocks{text("Paris")}}),
				msg("4", canonical.RoleAssistant, text("The capital of France is Paris.\n")),
				msg("5", canonical.RoleUser, text("What is the capital of England?")),
			}}
		body, err := ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		got := decodeJSON(t, body)
		// The recorder omitted content:null on the tool-calling message.
		gotMsgs := got["messages"].([]any)
		assert.Nil(t, jsonPath(t, gotMsgs, 1, "content"))
		delete(gotMsgs[1].(map[string]any), "content")
		assert.JSONEq(t, string(mustJSON(t, recorded["messages"])), string(mustJSON(t, gotMsgs)))
		assert.JSONEq(t, string(mustJSON(t, recorded["tools"])), string(mustJSON(t, got["tools"])))
		if diff := cmp.Diff(recorded["tool_choice"], got["tool_choice"]); diff != "" {
			t.Errorf("got.tool_choice mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(recorded["model"], got["model"]); diff != "" {
			t.Errorf("got.model mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("nonstream-image-url-input", func(t *testing.T) {
		recorded := decodeJSON(t, fixture(t, "openai-chat", "nonstream-image-url-input", "request.json"))
		zero := 0.0
		req := &canonical.Request{Model: "openai:gpt-4o", MaxOutputTokens: 300, Temperature: &zero, Messages: []canonical.Message{
			msg("1", canonical.RoleUser,
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://github.com/tmc/langchaingo/blob/main/docs/static/img/parrot-icon.png?raw=true"}},
				text("describe this image in detail")),
		}}
		body, err := ChatDialect{Provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		assert.JSONEq(t, string(mustJSON(t, recorded)), string(body))
	})
	t.Run("stream-parallel-tool-calls options", func(t *testing.T) {
		recorded := decodeJSON(t, fixture(t, "openai-chat", "stream-parallel-tool-calls", "request.json"))
		req := &canonical.Request{Model: "openai:gpt-4o", Stream: true,
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAny},
			Tools: []canonical.ToolDefinition{
				{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), Strict: true},
				{Name: "get_country", InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{},"type":"object"}`)},
			},
			Messages: []canonical.Message{msg("1", canonical.RoleUser, text("Tell me: the capital of the country; the weather there; the product name"))}}
		body, err := ChatDialect{Provider: "openai", StreamOptions: true}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		got := decodeJSON(t, body)
		for _, k := range []string{"stream", "stream_options", "tool_choice", "messages"} {
			if diff := cmp.Diff(recorded[k], got[k]); diff != "" {
				t.Errorf("%v (-want +got):\n%s", k, diff)
			}
		}
		for i := 0; i < 2; i++ {
			// The recorder sent empty descriptions; the adapter omits them.
			fn := jsonPath(t, recorded, "tools", i, "function").(map[string]any)
			assert.Equal(t, "", fn["description"])
			delete(fn, "description")
			assert.JSONEq(t, string(mustJSON(t, jsonPath(t, recorded, "tools", i))), string(mustJSON(t, jsonPath(t, got, "tools", i))), "tool %d", i)
		}
	})
}
