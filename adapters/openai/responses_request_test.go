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
	"github.com/metis-llm/metis/canonical"
)

// TestResponsesRequestGolden is the Responses half of 000 §10.1 check 1:
// a fixed canonical conversation, including an earlier OpenAI turn with
// reasoning, serialises to testdata/responses_request.json.
// goldenResponsesRequest is the canonical side of
// testdata/responses_request.json.
func goldenResponsesRequest() *canonical.Request {
	ids := adapters.NewToolIDMap()
	ids.Bind("tu_01J0000000000000000000000A", "openai", "call_abc")
	raw := json.RawMessage(`{"response_id":"resp_1","items":{"0":{"type":"reasoning","id":"rs_1","summary":[3,3]},"1":{"type":"message","id":"msg_1"},"2":{"type":"function_call","id":"fc_1"}}}`)
	turn1 := msg("m2", canonical.RoleAssistant,
		canonical.ThinkingBlock{Text: "one\n\ntwo", Signature: "ENC=="},
		text("Let me look."),
		canonical.ToolUseBlock{ID: "tu_01J0000000000000000000000A", Name: "get_capital", Input: json.RawMessage(`{"country":"France"}`)})
	turn1.Metadata = canonical.MessageMetadata{Provider: "openai", ProviderRaw: map[string]json.RawMessage{"openai": raw}}
	return &canonical.Request{
		RequestID:    "req_test",
		Model:        "openai:gpt-5",
		SystemPrompt: "You are terse.",
		Messages: []canonical.Message{
			msg("m0", canonical.RoleSystem, text("Answer in English.")),
			msg("m1", canonical.RoleUser, text("What is the capital of France?"),
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://example.com/map.png"}, MediaType: "image/png"}),
			turn1,
			msg("m3", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: "tu_01J0000000000000000000000A", Content: canonical.Blocks{text("Paris")}}),
			msg("m4", canonical.RoleUser, text("And Germany?")),
		},
		Tools: []canonical.ToolDefinition{
			{Name: "get_capital", Description: "Capital of a country.", InputSchema: capitalSchema},
			{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}`), Strict: true},
		},
		ToolChoice:      &canonical.ToolChoice{Mode: canonical.ToolChoiceAny},
		MaxOutputTokens: 2048,
		Thinking:        &canonical.ThinkingConfig{Effort: "high"},
		Stream:          true,
		ToolIDs:         ids,
	}
}

func TestResponsesRequestGolden(t *testing.T) {
	req := goldenResponsesRequest()
	d := responsesDialect{provider: "openai", reasoning: true}
	body, err := d.BuildRequest(buildCall(req, testConfig(), slog.New(&logRecorder{})))
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/responses_request.json")
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(body))
}

func TestResponsesSystemPlacement(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		system []string
		want   string
	}{
		{name: "none", want: ""},
		{name: "prompt", prompt: "P", want: "P"},
		{name: "single SYSTEM", system: []string{"S"}, want: "S"},
		{name: "prompt and SYSTEMs", prompt: "P", system: []string{"S1", "", "S2"}, want: "P\n\nS1\n\nS2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &canonical.Request{Model: "openai:gpt-5", SystemPrompt: tc.prompt}
			for _, s := range tc.system {
				req.Messages = append(req.Messages, msg("s", canonical.RoleSystem, text(s)))
			}
			req.Messages = append(req.Messages, msg("u", canonical.RoleUser, text("hi")))
			body, err := responsesDialect{provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
			require.NoError(t, err)
			m := decodeJSON(t, body)
			if tc.want == "" {
				assert.NotContains(t, m, "instructions")
			} else {
				assert.Equal(t, tc.want, m["instructions"])
			}
			assert.JSONEq(t, `[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]`, string(mustJSON(t, m["input"])))
		})
	}
}

// TestResponsesReasoningRoundTrip is the two-turn proof: turn 1's stream
// yields reasoning (encrypted_content) and a function call; turn 2's
// request sends the reasoning item back unchanged with store false, and
// its function_call_output carries turn 1's call_id.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	stream := fixture(t, "openai-responses", "stream-reasoning-summary-then-function-call", "response.txt")
	// What the API sent, read independently of the decoder: the
	// reasoning item as response.completed restates it, which wins over
	// output_item.done's (its encrypted_content differs byte for byte).
	type reasoningItem struct {
		ID               string `json:"id"`
		EncryptedContent string `json:"encrypted_content"`
		Summary          []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	var completed struct {
		Response struct {
			Output []reasoningItem `json:"output"`
		} `json:"response"`
	}
	require.NoError(t, json.Unmarshal(sseEventData(t, stream, "response.completed", `"type":"reasoning"`), &completed))
	require.NotEmpty(t, completed.Response.Output)
	var itemDone struct {
		Item reasoningItem `json:"item"`
	}
	require.NoError(t, json.Unmarshal(sseEventData(t, stream, "response.output_item.done", `"type":"reasoning"`), &itemDone))
	want := completed.Response.Output[0]
	require.NotEmpty(t, want.EncryptedContent)
	require.NotEqual(t, itemDone.Item.EncryptedContent, want.EncryptedContent, "the recording restates the reasoning re-encrypted")
	require.Len(t, want.Summary, 1)

	ids := adapters.NewToolIDMap()
	d := responsesDialect{provider: "openai", reasoning: true}
	r := runDecoder(d.DecodeStream, stream, ids)
	require.NoError(t, r.err)
	require.NotNil(t, r.resp)
	require.Len(t, r.resp.Content, 2)
	call := r.resp.Content[1].(canonical.ToolUseBlock)

	// The core turns the response into a message and the tool runs.
	turn1 := canonical.Message{ID: "a1", Role: canonical.RoleAssistant, Content: r.resp.Content,
		Metadata: canonical.MessageMetadata{Provider: "openai", ProviderRaw: map[string]json.RawMessage{"openai": r.resp.ProviderRaw}}}
	req := &canonical.Request{
		Model: "openai:gpt-5", ToolIDs: ids, Stream: true, Thinking: &canonical.ThinkingConfig{Effort: "high"},
		Messages: []canonical.Message{
			msg("u1", canonical.RoleUser, text("What's the weather in Florence, Italy?")),
			turn1,
			msg("t1", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: call.ID, Content: canonical.Blocks{text("Sunny, 24°C")}}),
		},
	}
	body, err := d.BuildRequest(buildCall(req, testConfig(), nil))
	require.NoError(t, err)
	m := decodeJSON(t, body)
	assert.Equal(t, false, m["store"])
	if diff := cmp.Diff([]any{"reasoning.encrypted_content"}, m["include"]); diff != "" {
		t.Errorf("m.include mismatch (-want +got):\n%s", diff)
	}
	input := m["input"].([]any)
	require.Len(t, input, 4)
	if diff := cmp.Diff(map[string]any{
		"type":              "reasoning",
		"id":                want.ID,
		"summary":           []any{map[string]any{"type": "summary_text", "text": want.Summary[0].Text}},
		"encrypted_content": want.EncryptedContent,
	}, input[1]); diff != "" {
		t.Errorf("reasoning item sent back as response.completed had it (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{
		"type":      "function_call",
		"id":        "fc_017e85da2ae23b69016a3c12560820819db3b6e8a38dddad65",
		"call_id":   "call_zgUaIBRPTwxxOusyyKw5NVMH",
		"name":      "weather",
		"arguments": `{"location":"Florence, Italy"}`,
	}, input[2]); diff != "" {
		t.Errorf("input[2] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{
		"type":    "function_call_output",
		"call_id": "call_zgUaIBRPTwxxOusyyKw5NVMH",
		"output":  "Sunny, 24°C",
	}, input[3]); diff != "" {
		t.Errorf("input[3] mismatch (-want +got):\n%s", diff)
	}
}

// TestResponsesSummaryPartsRoundTrip replays a four-part summary.
func TestResponsesSummaryPartsRoundTrip(t *testing.T) {
	stream := fixture(t, "openai-responses", "stream-reasoning-summary-text", "response.txt")
	var done struct {
		Item struct {
			Summary []map[string]any `json:"summary"`
		} `json:"item"`
	}
	require.NoError(t, json.Unmarshal(sseEventData(t, stream, "response.output_item.done", `"type":"reasoning"`), &done))
	d := responsesDialect{provider: "openai", reasoning: true}
	r := runDecoder(d.DecodeStream, stream, nil)
	require.NoError(t, r.err)
	turn := canonical.Message{ID: "a", Role: canonical.RoleAssistant, Content: r.resp.Content,
		Metadata: canonical.MessageMetadata{Provider: "openai", ProviderRaw: map[string]json.RawMessage{"openai": r.resp.ProviderRaw}}}
	body, err := d.BuildRequest(buildCall(&canonical.Request{Model: "openai:o3-mini", Messages: []canonical.Message{
		msg("u", canonical.RoleUser, text("How do I cross the street?")), turn, msg("u2", canonical.RoleUser, text("thanks"))}}, testConfig(), nil))
	require.NoError(t, err)
	m := decodeJSON(t, body)
	want := make([]any, len(done.Item.Summary))
	for i, s := range done.Item.Summary {
		want[i] = s
	}
	require.Len(t, want, 4)
	if diff := cmp.Diff(want, jsonPath(t, m, "input", 1, "summary")); diff != "" {
		t.Errorf("m.input.1.summary mismatch (-want +got):\n%s", diff)
	}
	// The message item goes back with its id, so the API can pair it with
	// the reasoning item before it.
	assert.Equal(t, "msg_68c42d26866c819da8d5c606621c911608fbf9b1584184ff", jsonPath(t, m, "input", 2, "id"))
	assert.Equal(t, "completed", jsonPath(t, m, "input", 2, "status"))
	assert.Equal(t, "assistant", jsonPath(t, m, "input", 2, "role"))
}

// TestResponsesForeignThinkingDropped: thinking from another provider, or
// without encrypted_content, cannot be replayed and is dropped with the
// WARN; no ids are read from another provider's ProviderRaw.
func TestResponsesForeignThinkingDropped(t *testing.T) {
	rec := &logRecorder{}
	foreign := msg("a1", canonical.RoleAssistant, canonical.ThinkingBlock{Text: "claude thoughts", Signature: "EqQBCkYI"}, text("hi"))
	foreign.Metadata = canonical.MessageMetadata{Provider: "anthropic", ProviderRaw: map[string]json.RawMessage{
		"openai": json.RawMessage(`{"items":{"1":{"type":"message","id":"msg_x"}}}`)}}
	unsigned := msg("a2", canonical.RoleAssistant, canonical.ThinkingBlock{Text: "no signature"}, text("ok"))
	unsigned.Metadata.Provider = "openai"
	req := &canonical.Request{Model: "openai:gpt-5", SessionID: "ses_9", Messages: []canonical.Message{foreign, unsigned}}
	body, err := responsesDialect{provider: "openai", reasoning: true}.BuildRequest(buildCall(req, testConfig(), slog.New(rec)))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "thoughts")
	assert.NotContains(t, string(body), "EqQBCkYI")
	assert.NotContains(t, string(body), "msg_x")
	assert.JSONEq(t, `[
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi","annotations":[]}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}]`,
		string(mustJSON(t, decodeJSON(t, body)["input"])))
	w := rec.warnings()
	require.Len(t, w, 2)
	assert.Equal(t, "a1", w[0]["message_id"])
	assert.Equal(t, "a2", w[1]["message_id"])
	for _, e := range w {
		assert.Equal(t, "thinking", e["block_type"])
		assert.Equal(t, "ses_1", e["session_id"])
		assert.Equal(t, "openai", e["adapter"])
	}
}

// TestResponsesUnsupportedParameters: a non-reasoning model gets no
// include or reasoning; stop and seed are left out with a WARN; a
// reasoning model drops temperature.
func TestResponsesUnsupportedParameters(t *testing.T) {
	rec := &logRecorder{}
	temp, seed := 0.5, int64(3)
	req := &canonical.Request{Model: "openai:gpt-4o", StopSequences: []string{"X"}, Seed: &seed, Temperature: &temp,
		Thinking: &canonical.ThinkingConfig{BudgetTokens: 1000},
		Messages: []canonical.Message{msg("u", canonical.RoleUser, text("hi"))}}
	body, err := responsesDialect{provider: "openai"}.BuildRequest(buildCall(req, testConfig(), slog.New(rec)))
	require.NoError(t, err)
	m := decodeJSON(t, body)
	for _, k := range []string{"include", "reasoning", "stop", "seed"} {
		assert.NotContains(t, m, k)
	}
	assert.Equal(t, 0.5, m["temperature"])
	assert.Equal(t, false, m["store"])
	assert.Len(t, rec.warnings(), 2)

	rec = &logRecorder{}
	body, err = responsesDialect{provider: "openai", reasoning: true}.BuildRequest(buildCall(req, testConfig(), slog.New(rec)))
	require.NoError(t, err)
	m = decodeJSON(t, body)
	assert.NotContains(t, m, "temperature")
	if diff := cmp.Diff(map[string]any{"effort": "low", "summary": "auto"}, m["reasoning"]); diff != "" {
		t.Errorf("m.reasoning mismatch (-want +got):\n%s", diff)
	}
	assert.Len(t, rec.warnings(), 3)
}

func TestResponsesFixtureRequests(t *testing.T) {
	t.Run("stream-reasoning-summary-then-function-call", func(t *testing.T) {
		recorded := decodeJSON(t, fixture(t, "openai-responses", "stream-reasoning-summary-then-function-call", "request.json"))
		req := &canonical.Request{Model: "openai:gpt-5", Stream: true, SystemPrompt: "You are a helpful assistant",
			Thinking:   &canonical.ThinkingConfig{Effort: "high"},
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
			Tools: []canonical.ToolDefinition{{Name: "weather", Description: "Get weather information for a location",
				InputSchema: json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`)}},
			Messages: []canonical.Message{msg("u", canonical.RoleUser, text("What's the weather in Florence, Italy?"))}}
		body, err := responsesDialect{provider: "openai", reasoning: true}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		got := decodeJSON(t, body)
		for _, k := range []string{"store", "include", "reasoning", "tool_choice", "tools", "stream", "model"} {
			if diff := cmp.Diff(recorded[k], got[k]); diff != "" {
				t.Errorf("%v (-want +got):\n%s", k, diff)
			}
		}
		// The recording sent the system text as a developer message; the
		// adapter uses instructions, and the user turn matches.
		assert.Equal(t, "You are a helpful assistant", got["instructions"])
		if diff := cmp.Diff(jsonPath(t, recorded, "input", 1, "content"), jsonPath(t, got, "input", 0, "content")); diff != "" {
			t.Errorf("got.input.0.content mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("stream-function-call-reasoning-flex", func(t *testing.T) {
		recorded := decodeJSON(t, fixture(t, "openai-responses", "stream-function-call-reasoning-flex", "request.json"))
		req := &canonical.Request{Model: "openai:gpt-5", Stream: true,
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAny},
			Tools: []canonical.ToolDefinition{{Name: "final_result", Description: "The final response which ends this conversation",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}`), Strict: true}},
			Messages: []canonical.Message{msg("u", canonical.RoleUser, text("Calculate 100 * 200 / 3"))}}
		body, err := responsesDialect{provider: "openai", reasoning: true}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		got := decodeJSON(t, body)
		for _, k := range []string{"include", "tool_choice", "tools", "stream", "model"} {
			if diff := cmp.Diff(recorded[k], got[k]); diff != "" {
				t.Errorf("%v (-want +got):\n%s", k, diff)
			}
		}
	})
	t.Run("nonstream-image-url-input", func(t *testing.T) {
		recorded := decodeJSON(t, fixture(t, "openai-responses", "nonstream-image-url-input", "request.json"))
		req := &canonical.Request{Model: "openai:gpt-4o", Messages: []canonical.Message{msg("u", canonical.RoleUser, text("hello"),
			canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL,
				Data: "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg"}, MediaType: "image/jpeg"})}}
		body, err := responsesDialect{provider: "openai"}.BuildRequest(buildCall(req, testConfig(), nil))
		require.NoError(t, err)
		got := decodeJSON(t, body)
		if diff := cmp.Diff(jsonPath(t, recorded, "input", 0, "content"), jsonPath(t, got, "input", 0, "content")); diff != "" {
			t.Errorf("got.input.0.content mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, "gpt-4o", got["model"])
	})
}

func TestSplitSummary(t *testing.T) {
	tests := []struct {
		text string
		lens []int
		want []string
	}{
		{"", nil, []string{}},
		{"abc", nil, []string{"abc"}},
		{"ab\n\ncd", []int{2, 2}, []string{"ab", "cd"}},
		{"a\n\nb\n\nc\n\nd", []int{4, 4}, []string{"a\n\nb", "c\n\nd"}}, // lengths keep separators inside parts
		{"ab\n\ncd", []int{3, 1}, []string{"ab\n\ncd"}},                 // boundary not at a separator
		{"ab\n\ncd!", []int{2, 2}, []string{"ab\n\ncd!"}},               // edited text
		{"ab", []int{5, 5}, []string{"ab"}},                             // lengths too long
		{"ab\n\ncd", []int{-1, 2}, []string{"ab\n\ncd"}},                // nonsense
	}
	for _, tc := range tests {
		got := splitSummary(tc.text, tc.lens)
		texts := make([]string, len(got))
		for i, p := range got {
			assert.Equal(t, "summary_text", p.Type)
			texts[i] = p.Text
		}
		if diff := cmp.Diff(tc.want, texts); diff != "" {
			t.Errorf("%q %v (-want +got):\n%s", tc.text, tc.lens, diff)
		}
	}
}

// TestResponsesToolResultError: the Responses API has no error flag on
// function_call_output; a failed result's output carries the "Error: "
// prefix, as on Chat Completions (003 §5.3).
func TestResponsesToolResultError(t *testing.T) {
	ids := adapters.NewToolIDMap()
	id := ids.Canonical("openai", "call_1")
	req := &canonical.Request{Model: "openai:gpt-5", ToolIDs: ids, Messages: []canonical.Message{
		msg("u1", canonical.RoleUser, text("Read notes.md.")),
		{ID: "a1", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "openai"},
			Content: canonical.Blocks{canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"notes.md"}`)}}},
		msg("t1", canonical.RoleTool, canonical.ToolResultBlock{ToolUseID: id, IsError: true, Content: canonical.Blocks{text("ENOENT")}}),
	}}
	d := responsesDialect{provider: "openai", reasoning: true}
	body, err := d.BuildRequest(buildCall(req, testConfig(), nil))
	require.NoError(t, err)
	input := decodeJSON(t, body)["input"].([]any)
	require.Len(t, input, 3)
	if diff := cmp.Diff(map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "Error: ENOENT"}, input[2]); diff != "" {
		t.Errorf("input[2] mismatch (-want +got):\n%s", diff)
	}
}
