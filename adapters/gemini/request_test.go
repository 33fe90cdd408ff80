package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

func sysMsg(text string) canonical.Message {
	return canonical.Message{ID: canonical.NewMessageID(), Role: canonical.RoleSystem, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func TestSystemPlacement(t *testing.T) {
	a, _ := testAdapter(t)
	for _, tc := range []struct {
		name   string
		prompt string
		system []string
		want   any // systemInstruction, nil when absent
	}{
		{name: "none", want: nil},
		{name: "prompt only", prompt: "Be brief.", want: "Be brief."},
		{name: "one system message", system: []string{"You are terse."}, want: "You are terse."},
		{name: "prompt and two system messages", prompt: "Be brief.", system: []string{"You are terse.", "Answer in French."},
			want: "Be brief.\n\nYou are terse.\n\nAnswer in French."},
		{name: "empty system message", system: []string{""}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var msgs []canonical.Message
			for _, s := range tc.system {
				msgs = append(msgs, sysMsg(s))
			}
			msgs = append(msgs, userMsg("hi"))
			body := buildBody(t, a, &canonical.Request{Model: testModel, SystemPrompt: tc.prompt, Messages: msgs})
			if tc.want == nil {
				assert.NotContains(t, body, "systemInstruction")
			} else {
				if diff := cmp.Diff(map[string]any{"parts": []any{map[string]any{"text": tc.want}}}, body["systemInstruction"]); diff != "" {
					t.Errorf("body.systemInstruction mismatch (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff([]any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}}, body["contents"]); diff != "" {
				t.Errorf("system messages never appear in contents (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContentsMergeSameRole(t *testing.T) {
	a, _ := testAdapter(t)
	call := canonical.ToolUseBlock{ID: canonical.NewToolUseID(), Name: "get_weather", Input: json.RawMessage(`{"city":"Oslo"}`)}
	msgs := []canonical.Message{
		userMsg("one"),
		userMsg("two"),
		{ID: canonical.NewMessageID(), Role: canonical.RoleAssistant, Content: canonical.Blocks{canonical.TextBlock{Text: "calling"}, call},
			Metadata: canonical.MessageMetadata{Provider: "openai"}},
		toolResultMsg(call.ID, "3°C", false),
		userMsg("thanks"),
	}
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: msgs, Tools: []canonical.ToolDefinition{getWeather}})
	want := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "one"}, map[string]any{"text": "two"}}},
		map[string]any{"role": "model", "parts": []any{
			map[string]any{"text": "calling"},
			map[string]any{"functionCall": map[string]any{"name": "get_weather", "args": map[string]any{"city": "Oslo"}}},
		}},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"name": "get_weather", "response": map[string]any{"output": "3°C"}}},
			map[string]any{"text": "thanks"},
		}},
	}
	if diff := cmp.Diff(want, body["contents"]); diff != "" {
		t.Errorf("body.contents mismatch (-want +got):\n%s", diff)
	}
}

// TestToolSerialization: inputs of every JSON shape go out as args
// objects verbatim and come back identical.
func TestToolSerialization(t *testing.T) {
	a, _ := testAdapter(t)
	inputs := []string{
		`{}`,
		`{"s":"text with \"quotes\" and <html> & ünïcode","n":12345678901234567890,"f":-0.5e-3,"t":true,"z":null}`,
		`{"nested":{"list":[1,"two",{"three":[3]}],"empty":{},"arr":[]}}`,
	}
	for _, in := range inputs {
		call := canonical.ToolUseBlock{ID: canonical.NewToolUseID(), Name: "anything", Input: json.RawMessage(in)}
		msgs := []canonical.Message{userMsg("go"),
			{Role: canonical.RoleAssistant, Content: canonical.Blocks{call}, Metadata: canonical.MessageMetadata{Provider: "gemini"}},
			toolResultMsg(call.ID, "ok", false)}
		w, err := a.Encode(&canonical.Request{Model: testModel, Messages: msgs}, false)
		require.NoError(t, err)
		body := w.Body
		var wire struct {
			Contents []struct {
				Parts []struct {
					FunctionCall *struct {
						Args json.RawMessage `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"contents"`
		}
		require.NoError(t, json.Unmarshal(body, &wire))
		args := wire.Contents[1].Parts[0].FunctionCall.Args
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, []byte(in)))
		assert.Equal(t, compact.String(), string(args), "args are the input verbatim (numbers, escapes, key order)")

		// Back to canonical: Gemini echoes the args, the decoder keeps them verbatim.
		sse := "data: " + `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"anything","args":` + string(args) + `}}]},"finishReason":"STOP"}]}` + "\n\n"
		evs, _, err := decodeEvents(t, []byte(sse), nil)
		require.NoError(t, err)
		got := final(t, evs).Content[0].(canonical.ToolUseBlock)
		assert.Equal(t, string(args), string(got.Input), "input bytes survive the round trip")
	}
}

func TestToolChoice(t *testing.T) {
	a, _ := testAdapter(t)
	for _, tc := range []struct {
		choice *canonical.ToolChoice
		want   any
	}{
		{nil, nil},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}, map[string]any{"mode": "AUTO"}},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceAny}, map[string]any{"mode": "ANY"}},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceNone}, map[string]any{"mode": "NONE"}},
		{&canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "get_weather"},
			map[string]any{"mode": "ANY", "allowedFunctionNames": []any{"get_weather"}}},
	} {
		body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: []canonical.Message{userMsg("hi")},
			Tools: []canonical.ToolDefinition{getWeather}, ToolChoice: tc.choice})
		if tc.want == nil {
			assert.NotContains(t, body, "toolConfig")
			continue
		}
		if diff := cmp.Diff(tc.want, path(t, body, "toolConfig", "functionCallingConfig")); diff != "" {
			t.Errorf("choice %+v (-want +got):\n%s", tc.choice, diff)
		}
		assert.Equal(t, "get_weather", path(t, body, "tools", 0, "functionDeclarations", 0, "name"))
	}
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: []canonical.Message{userMsg("hi")},
		ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAny}})
	assert.NotContains(t, body, "toolConfig", "no tools, no tool config")
	assert.NotContains(t, body, "tools")
}

func TestGenerationConfig(t *testing.T) {
	a, _ := testAdapter(t)
	temp, topP, seed := 0.2, 0.9, int64(7)
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: []canonical.Message{userMsg("hi")},
		MaxOutputTokens: 1024, Temperature: &temp, TopP: &topP, Seed: &seed, StopSequences: []string{"END"},
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":["integer","null"]}},"required":["name","age"],"additionalProperties":false}`),
		Thinking:     &canonical.ThinkingConfig{BudgetTokens: 2048},
	})
	want := map[string]any{
		"maxOutputTokens":  1024.0,
		"temperature":      0.2,
		"topP":             0.9,
		"seed":             7.0,
		"stopSequences":    []any{"END"},
		"responseMimeType": "application/json",
		"responseSchema": map[string]any{
			"type": "OBJECT",
			"properties": map[string]any{
				"name": map[string]any{"type": "STRING"},
				"age":  map[string]any{"type": "INTEGER", "nullable": true},
			},
			"propertyOrdering": []any{"name", "age"},
			"required":         []any{"name", "age"},
		},
		"thinkingConfig": map[string]any{"includeThoughts": true, "thinkingBudget": 2048.0},
	}
	if diff := cmp.Diff(want, body["generationConfig"]); diff != "" {
		t.Errorf("body.generationConfig mismatch (-want +got):\n%s", diff)
	}
}

func TestThinkingConfig(t *testing.T) {
	a, _ := testAdapter(t)
	for _, tc := range []struct {
		model    string
		thinking *canonical.ThinkingConfig
		want     any
	}{
		{testModel, nil, nil},
		{testModel, &canonical.ThinkingConfig{}, map[string]any{"includeThoughts": true}},
		{testModel, &canonical.ThinkingConfig{Effort: "medium"}, map[string]any{"includeThoughts": true, "thinkingBudget": 8192.0}},
		{testModel3, &canonical.ThinkingConfig{Effort: "low"}, map[string]any{"includeThoughts": true, "thinkingLevel": "LOW"}},
		{testModel3, &canonical.ThinkingConfig{BudgetTokens: 500, Effort: "low"}, map[string]any{"includeThoughts": true, "thinkingBudget": 500.0}},
		{"gemini:gemini-2.0-flash", &canonical.ThinkingConfig{BudgetTokens: 500}, nil}, // cannot think: not sent
	} {
		body := buildBody(t, a, &canonical.Request{Model: tc.model, Messages: []canonical.Message{userMsg("hi")}, Thinking: tc.thinking})
		if tc.want == nil {
			assert.NotContains(t, body, "generationConfig", "%s %+v", tc.model, tc.thinking)
			continue
		}
		if diff := cmp.Diff(tc.want, path(t, body, "generationConfig", "thinkingConfig")); diff != "" {
			t.Errorf("%s %+v (-want +got):\n%s", tc.model, tc.thinking, diff)
		}
	}
}

func TestImages(t *testing.T) {
	a, logs := testAdapter(t)
	img := func(kind, data, mt string) canonical.ImageBlock {
		return canonical.ImageBlock{Source: canonical.ImageSource{Kind: kind, Data: data}, MediaType: mt}
	}
	msg := canonical.Message{ID: "01MSGIMAGES", Role: canonical.RoleUser, Content: canonical.Blocks{
		canonical.TextBlock{Text: "look"},
		img(canonical.ImageBase64, "iVBORw0KGgo=", "image/png"),
		img(canonical.ImageURL, "https://example.com/cat.jpg", "image/jpeg"),
		img(canonical.ImageURL, "data:image/webp;base64,UklGRg==", "image/webp"),
		img(canonical.ImageFileRef, "pics/dog.png", "image/png"),
	}}
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: []canonical.Message{msg}})
	want := []any{
		map[string]any{"text": "look"},
		map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": "iVBORw0KGgo="}},
		map[string]any{"fileData": map[string]any{"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg"}},
		map[string]any{"inlineData": map[string]any{"mimeType": "image/webp", "data": "UklGRg=="}},
	}
	if diff := cmp.Diff(want, path(t, body, "contents", 0, "parts")); diff != "" {
		t.Errorf("body.contents.0.parts mismatch (-want +got):\n%s", diff)
	}
	entries := logs.entries(t)
	require.Len(t, entries, 1, "the file_ref image is dropped with one WARN")
	assert.Equal(t, "WARN", entries[0]["level"])
	assert.Equal(t, driver.LossyProjectionMsg, entries[0]["msg"])
	assert.Equal(t, "image", entries[0]["block_type"])
	assert.Equal(t, "01MSGIMAGES", entries[0]["message_id"])
	assert.Equal(t, "gemini", entries[0]["adapter"])
}

// TestLossyProjection: blocks Gemini cannot carry are dropped whole, each
// with one WARN naming the block type and the reason.
func TestLossyProjection(t *testing.T) {
	a, logs := testAdapter(t)
	asst := canonical.Message{ID: "01MSGASSISTANT", Role: canonical.RoleAssistant, Content: canonical.Blocks{
		canonical.ThinkingBlock{Text: "Claude's reasoning", Signature: "c2lnLWFudGhyb3BpYw=="},
		canonical.RedactedThinkingBlock{Data: "ZW5jcnlwdGVk"},
		canonical.TextBlock{Text: "Answer."},
	}, Metadata: canonical.MessageMetadata{Provider: "anthropic"}}
	req := &canonical.Request{Model: testModel, SessionID: "sess_1", Messages: []canonical.Message{userMsg("q"), asst, userMsg("more")}}
	body := buildBody(t, a, req)
	if diff := cmp.Diff([]any{map[string]any{"text": "Answer."}}, path(t, body, "contents", 1, "parts")); diff != "" {
		t.Errorf("body.contents.1.parts mismatch (-want +got):\n%s", diff)
	}
	assert.NotContains(t, string(mustJSON(t, body)), "c2lnLWFudGhyb3BpYw==", "no foreign signature reaches the wire")

	entries := logs.entries(t)
	require.Len(t, entries, 2)
	for i, typ := range []string{"thinking", "redacted_thinking"} {
		assert.Equal(t, typ, entries[i]["block_type"])
		assert.Equal(t, "sess_1", entries[i]["session_id"])
		assert.Equal(t, "01MSGASSISTANT", entries[i]["message_id"])
		assert.NotEmpty(t, entries[i]["reason"])
	}
}

// TestOwnThinkingSentBack: the adapter's own thought parts go back as
// thought parts with their signatures.
func TestOwnThinkingSentBack(t *testing.T) {
	a, logs := testAdapter(t)
	asst := canonical.Message{Role: canonical.RoleAssistant, Content: canonical.Blocks{
		canonical.ThinkingBlock{Text: "Plan: answer.", Signature: "dGhvdWdodC1zaWc="},
		canonical.TextBlock{Text: "Answer."},
	}, Metadata: canonical.MessageMetadata{Provider: "gemini",
		ProviderRaw: map[string]json.RawMessage{"gemini": json.RawMessage(`{"signatures":{"1":"dGV4dC1zaWc="},"trailing_signature":"dHJhaWxpbmc="}`)}}}
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: []canonical.Message{userMsg("q"), asst, userMsg("more")}})
	want := []any{
		map[string]any{"text": "Plan: answer.", "thought": true, "thoughtSignature": "dGhvdWdodC1zaWc="},
		map[string]any{"text": "Answer.", "thoughtSignature": "dGV4dC1zaWc="},
		map[string]any{"text": "", "thoughtSignature": "dHJhaWxpbmc="},
	}
	if diff := cmp.Diff(want, path(t, body, "contents", 1, "parts")); diff != "" {
		t.Errorf("body.contents.1.parts mismatch (-want +got):\n%s", diff)
	}
	assert.Empty(t, logs.entries(t))
}

func TestToolResultUnknownCall(t *testing.T) {
	a, _ := testAdapter(t)
	// Validation catches it before the builder; the error names the block.
	_, err := a.Encode(&canonical.Request{RequestID: "req_x", Model: testModel, Messages: []canonical.Message{
		userMsg("q"), toolResultMsg(canonical.NewToolUseID(), "orphan", false)}}, false)
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
	assert.Equal(t, "gemini", ae.Provider)
	assert.Equal(t, "req_x", ae.RequestID)
	assert.Contains(t, err.Error(), "unknown tool_use")
}

// TestHTTPRequest: the key goes in x-goog-api-key only, never the URL.
func TestHTTPRequest(t *testing.T) {
	for _, stream := range []bool{false, true} {
		sse := "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"
		rep := jsonReply(200, []byte(`{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`))
		if stream {
			rep = sseReply([]byte(sse))
		}
		e := newEnvWith(t, func(c *adapters.Config) {
			c.ExtraHeaders = map[string]string{"X-Extra": "1", "x-goog-api-key": "overridden"}
		}, rep)
		req := userRequest(testModel, "hi")
		if stream {
			_, err := adaptertest.Collect(e.a.Stream(context.Background(), req))
			require.NoError(t, err)
		} else {
			_, err := e.a.Complete(context.Background(), req)
			require.NoError(t, err)
		}
		r := e.Requests()[0]
		assert.Equal(t, "POST", r.method)
		if stream {
			assert.Equal(t, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", r.url)
			assert.Equal(t, "text/event-stream", r.header.Get("Accept"))
		} else {
			assert.Equal(t, "/v1beta/models/gemini-2.5-pro:generateContent", r.url)
		}
		assert.NotContains(t, r.url, testAPIKey)
		assert.NotContains(t, r.url, "key=")
		// Drift fixed: extra headers come last on every provider, so they
		// win over the key here as on Anthropic (Gemini used to set the
		// key after them).
		assert.Equal(t, "overridden", r.header.Get("x-goog-api-key"), "extra headers win over the key")
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
		assert.Equal(t, "1", r.header.Get("X-Extra"))
	}
}

func TestVersionedBase(t *testing.T) {
	for in, want := range map[string]string{
		"": "https://generativelanguage.googleapis.com/v1beta",
		"https://generativelanguage.googleapis.com/": "https://generativelanguage.googleapis.com/v1beta",
		"https://proxy.example/gemini/v1beta/":       "https://proxy.example/gemini/v1beta",
		"https://proxy.example/v1":                   "https://proxy.example/v1",
	} {
		assert.Equal(t, want, versionedBase(in), "base %q", in)
	}
}

func TestNewRequiresKey(t *testing.T) {
	_, err := New(adapters.Config{APIKeyEnv: "GEMINI_API_KEY"})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrAuth, ae.Class)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	// One missing-key error everywhere (Config.KeyError), naming the
	// variable: the registry and every adapter used to word it apart.
	assert.Equal(t, `adapter "gemini" is not configured: environment variable GEMINI_API_KEY is not set (set it; or point the adapter's api_key_env in models.yaml at another variable, or set api_key there; or set Config.APIKey)`, ae.Message)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestRequestBytes pins the exact wire body of a conversation that uses
// every mapping at once against a hand-written expectation
// (testdata/request_full.json): system hoisting, an image, the adapter's
// own thinking and signatures, a Gemini-issued call id, a tool result,
// another provider's turn (its thinking dropped), tools, tool choice and
// generation settings.
func TestRequestBytes(t *testing.T) {
	ids := adapters.NewToolIDMap()
	callID := ids.Canonical("gemini", "fc_oslo_1")
	temp := 0.5
	req := &canonical.Request{
		Model:        testModel3,
		SystemPrompt: "You are a helpful assistant.",
		Messages: []canonical.Message{
			sysMsg("Answer briefly."),
			{Role: canonical.RoleUser, Content: canonical.Blocks{
				canonical.TextBlock{Text: "What's in this picture, and the weather in Oslo?"},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"},
			}},
			{Role: canonical.RoleAssistant, Content: canonical.Blocks{
				canonical.ThinkingBlock{Text: "I should check the weather.", Signature: "dGhpbms="},
				canonical.TextBlock{Text: "Let me check."},
				canonical.ToolUseBlock{ID: callID, Name: "get_weather", Input: json.RawMessage(`{"city": "Oslo"}`)},
			}, Metadata: canonical.MessageMetadata{Provider: "gemini", ProviderRaw: map[string]json.RawMessage{
				"gemini":    json.RawMessage(`{"signatures":{"2":"Y2FsbA=="}}`),
				"anthropic": json.RawMessage(`{"id":"msg_ignored"}`),
			}}},
			toolResultMsg(callID, "3°C, cloudy", false),
			{Role: canonical.RoleAssistant, Content: canonical.Blocks{
				canonical.ThinkingBlock{Text: "Claude thinks.", Signature: "YW50aHJvcGlj"},
				canonical.TextBlock{Text: "It is 3°C & cloudy <in Oslo>."},
			}, Metadata: canonical.MessageMetadata{Provider: "anthropic"}},
			userMsg("Thanks! And Paris?"),
		},
		Tools:           []canonical.ToolDefinition{getWeather},
		ToolChoice:      &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
		MaxOutputTokens: 2048,
		Temperature:     &temp,
		Thinking:        &canonical.ThinkingConfig{Effort: "high"},
		ToolIDs:         ids,
	}
	a, logs := testAdapter(t)
	w, err := a.Encode(req, false)
	require.NoError(t, err)
	body := w.Body
	assert.True(t, strings.HasSuffix(w.URL, "/models/gemini-3-pro-preview:generateContent"), w.URL)
	var want bytes.Buffer
	require.NoError(t, json.Compact(&want, readTestdata(t, "request_full.json")))
	assert.Equal(t, want.String(), string(body))
	entries := logs.entries(t)
	require.Len(t, entries, 1, "only the anthropic thinking block is dropped")
	assert.Equal(t, "thinking", entries[0]["block_type"])
}

// TestToolResultError: a failed tool result goes back under the
// functionResponse response's "error" key, which the API reference
// defines for error details (a successful one under "output").
func TestToolResultError(t *testing.T) {
	a, _ := testAdapter(t)
	call := canonical.ToolUseBlock{ID: canonical.NewToolUseID(), Name: "get_weather", Input: json.RawMessage(`{"city":"Oslo"}`)}
	msgs := []canonical.Message{
		userMsg("weather?"),
		{ID: canonical.NewMessageID(), Role: canonical.RoleAssistant, Content: canonical.Blocks{call},
			Metadata: canonical.MessageMetadata{Provider: "openai"}},
		toolResultMsg(call.ID, "upstream timed out", true),
	}
	body := buildBody(t, a, &canonical.Request{Model: testModel, Messages: msgs, Tools: []canonical.ToolDefinition{getWeather}})
	want := map[string]any{"role": "user", "parts": []any{
		map[string]any{"functionResponse": map[string]any{"name": "get_weather", "response": map[string]any{"error": "upstream timed out"}}},
	}}
	if diff := cmp.Diff(want, body["contents"].([]any)[2]); diff != "" {
		t.Errorf("body.contents[2] mismatch (-want +got):\n%s", diff)
	}
}
