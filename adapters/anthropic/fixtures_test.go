package anthropic

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// fixtureMeta is the part of meta.json the tests use.
type fixtureMeta struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"response_headers"`
}

// serveFixture answers every request with the fixture's recorded status,
// headers and body.
func serveFixture(t *testing.T, name string) http.HandlerFunc {
	t.Helper()
	var meta fixtureMeta
	require.NoError(t, json.Unmarshal(readFixture(t, name, "meta.json"), &meta))
	var body []byte
	for _, f := range []string{"response.txt", "response.json"} {
		if b, err := os.ReadFile(fixturesDir(t) + "/" + name + "/" + f); err == nil {
			body = b
		}
	}
	require.NotNil(t, body, "fixture %s has no response", name)
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range meta.Headers {
			if !strings.EqualFold(k, "transfer-encoding") {
				w.Header().Set(k, v)
			}
		}
		w.WriteHeader(meta.Status)
		_, _ = w.Write(body)
	}
}

// fixtureRequestField returns one top-level field of the fixture's
// recorded request, as JSON.
func fixtureRequestField(t *testing.T, name, field string) string {
	t.Helper()
	var req map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(readFixture(t, name, "request.json"), &req))
	require.Contains(t, req, field)
	return string(req[field])
}

func sentField(t *testing.T, env *testEnv, field string) string {
	t.Helper()
	var req map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(env.rawBody(t, 0), &req))
	require.Contains(t, req, field)
	return string(req[field])
}

func TestFixtures(t *testing.T) {
	fixturesDir(t)
	const (
		thinkingText = "The user is asking about the largest city in \"the user country\". To answer this question, I first need to determine what country the user is from. I have access to a function called \"get_user_country\" that can help me find out the user's country. Once I know the country, I can then provide information about its largest city.\n\nLet me call the get_user_country function first."
		turn1Text    = "I'll help you find the largest city in your country. First, let me determine which country you're from."
	)
	countryTool := canonical.ToolDefinition{Name: "get_user_country", InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{},"type":"object"}`)}
	numberSchema := json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`)

	t.Run("error-400-invalid-request-with-request-id", func(t *testing.T) {
		const name = "error-400-invalid-request-with-request-id"
		env := newEnv(t, serveFixture(t, name))
		_, err := env.a.Complete(t.Context(), &canonical.Request{Model: "anthropic:claude-opus-4-6", Messages: []canonical.Message{userText("What is 2+2?")}})
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
		assert.Equal(t, 400, ae.Status)
		assert.Equal(t, "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium.", ae.Message)
		assert.Equal(t, "req_011Ca7jT9AHpgXgdv8igm4z9", ae.ProviderRequestID)
		assert.False(t, ae.Retryable)
		assert.Equal(t, 1, ae.Attempts)
		assert.Equal(t, 1, env.requests(), "a 400 is not retried")
	})

	t.Run("error-401-authentication-stream-request", func(t *testing.T) {
		const name = "error-401-authentication-stream-request"
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{Model: "anthropic:claude-3-7-sonnet-20250219", Messages: []canonical.Message{userText("Hello, world!")}, MaxOutputTokens: 100, Temperature: new(0.5)}
		evs, err := adaptertest.Collect(env.a.Stream(t.Context(), req))
		assert.Empty(t, evs, "a failure before the body yields only the error")
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, canonical.ErrAuth, ae.Class)
		assert.Equal(t, 401, ae.Status)
		assert.Equal(t, "invalid x-api-key", ae.Message)
		assert.Equal(t, "req_011CVa2keDyYxR4zcffmFjWv", ae.ProviderRequestID)
		assert.False(t, ae.Retryable)
		assert.Equal(t, 1, env.requests())
		assert.JSONEq(t, fixtureRequestField(t, name, "max_tokens"), sentField(t, env, "max_tokens"))
		assert.JSONEq(t, fixtureRequestField(t, name, "temperature"), sentField(t, env, "temperature"))
		assert.JSONEq(t, fixtureRequestField(t, name, "stream"), sentField(t, env, "stream"))
		assert.JSONEq(t, fixtureRequestField(t, name, "model"), sentField(t, env, "model"))
	})

	t.Run("nonstream-image-base64-input", func(t *testing.T) {
		const name = "nonstream-image-base64-input"
		var fx struct {
			Messages []struct {
				Content []struct {
					Source struct {
						Data string `json:"data"`
					} `json:"source"`
				} `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(readFixture(t, name, "request.json"), &fx))
		png := fx.Messages[0].Content[1].Source.Data
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{Model: "anthropic:claude-sonnet-4-20250514", MaxOutputTokens: 4000, Messages: []canonical.Message{{
			ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{
				canonical.TextBlock{Text: "Describe the image briefly in English."},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: png}, MediaType: "image/png"},
			},
		}}}
		req.SystemPrompt = "You are a helpful assistant"
		resp, err := env.a.Complete(t.Context(), req)
		require.NoError(t, err)
		for _, f := range []string{"messages", "model", "max_tokens"} {
			assert.JSONEq(t, fixtureRequestField(t, name, f), sentField(t, env, f), f)
		}
		// The recording's client sent the system prompt as a block array.
		assert.JSONEq(t, `"You are a helpful assistant"`, sentField(t, env, "system"))
		require.Len(t, resp.Content, 1)
		assert.True(t, strings.HasPrefix(resp.Content.Text(), "This image shows a simple, minimalist design featuring a small green star"))
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
		assert.Equal(t, "end_turn", resp.ProviderStopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 27, OutputTokens: 65}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
		assert.JSONEq(t, `{"id":"msg_01NusK7N3cvXsHRya8jx1NDU"}`, string(resp.ProviderRaw))
		assert.Equal(t, "claude-sonnet-4-20250514", resp.ServedModel)
		assert.Equal(t, string(readFixture(t, name, "response.json")), string(resp.RawBody))
	})

	t.Run("nonstream-image-url-input", func(t *testing.T) {
		const name = "nonstream-image-url-input"
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{Model: "anthropic:claude-haiku-4-5", Messages: []canonical.Message{{
			ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{
				canonical.TextBlock{Text: "What is this vegetable?"},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg"}, MediaType: "image/jpeg"},
			},
		}}}
		resp, err := env.a.Complete(t.Context(), req)
		require.NoError(t, err)
		assert.JSONEq(t, string(readFixture(t, name, "request.json")), string(env.rawBody(t, 0)))
		assert.True(t, strings.HasPrefix(resp.Content.Text(), "This is a potato."))
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 296, OutputTokens: 91}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("nonstream-thinking-tool-use", func(t *testing.T) {
		const name = "nonstream-thinking-tool-use"
		env := newEnv(t, serveFixture(t, name))
		ids := adapters.NewToolIDMap()
		req := &canonical.Request{
			Model: "anthropic:claude-sonnet-4-0", Messages: []canonical.Message{userText("What is the largest city in the user country?")},
			Tools: []canonical.ToolDefinition{countryTool}, ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
			Thinking: &canonical.ThinkingConfig{BudgetTokens: 3000}, ToolIDs: ids,
		}
		resp, err := env.a.Complete(t.Context(), req)
		require.NoError(t, err)
		assert.JSONEq(t, string(readFixture(t, name, "request.json")), string(env.rawBody(t, 0)))

		require.Len(t, resp.Content, 3)
		th, ok := resp.Content[0].(canonical.ThinkingBlock)
		require.True(t, ok, "content[0] is %T", resp.Content[0])
		assert.Equal(t, thinkingText, th.Text)
		assert.True(t, strings.HasPrefix(th.Signature, "EqEECkYICxgCKkAo3UA4WwDbB8ihhpykVCsPx6iMzwNTNP8d"))
		assert.True(t, strings.HasSuffix(th.Signature, "a+SkcXhw9EK5/JwYAQ=="))
		assert.Len(t, th.Signature, 736)
		if diff := cmp.Diff(canonical.TextBlock{Text: turn1Text}, resp.Content[1]); diff != "" {
			t.Errorf("resp.Content[1] mismatch (-want +got):\n%s", diff)
		}
		tu, ok := resp.Content[2].(canonical.ToolUseBlock)
		require.True(t, ok)
		assert.Equal(t, "get_user_country", tu.Name)
		assert.JSONEq(t, `{}`, string(tu.Input))
		assert.True(t, canonical.IsToolUseID(tu.ID))
		assert.Equal(t, "toolu_01YGzqpRE16Vricda3Aqcejo", ids.Wire("anthropic", tu.ID), "the provider id is kept in the map")
		assert.Equal(t, canonical.StopToolUse, resp.StopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 398, OutputTokens: 155}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("nonstream-tool-result-turn2", func(t *testing.T) {
		const name = "nonstream-tool-result-turn2"
		var sig struct {
			Messages []struct {
				Content []struct {
					Signature string `json:"signature"`
				} `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(readFixture(t, name, "request.json"), &sig))
		signature := sig.Messages[1].Content[0].Signature

		ids := adapters.NewToolIDMap()
		callID := ids.Canonical("anthropic", "toolu_01YGzqpRE16Vricda3Aqcejo")
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{
			Model: "anthropic:claude-sonnet-4-0", ToolIDs: ids,
			Tools: []canonical.ToolDefinition{countryTool}, ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
			Thinking: &canonical.ThinkingConfig{BudgetTokens: 3000},
			Messages: []canonical.Message{
				userText("What is the largest city in the user country?"),
				{ID: "m2", Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "anthropic", Model: "anthropic:claude-sonnet-4-0"}, Content: canonical.Blocks{
					canonical.ThinkingBlock{Text: thinkingText, Signature: signature},
					canonical.TextBlock{Text: turn1Text},
					canonical.ToolUseBlock{ID: callID, Name: "get_user_country", Input: json.RawMessage(`{}`)},
				}},
				{ID: "m3", Role: canonical.RoleTool, Metadata: canonical.MessageMetadata{ParentToolUseID: callID}, Content: canonical.Blocks{
					canonical.ToolResultBlock{ToolUseID: callID, Content: canonical.Blocks{canonical.TextBlock{Text: "Mexico"}}},
				}},
			},
		}
		resp, err := env.a.Complete(t.Context(), req)
		require.NoError(t, err)
		assert.JSONEq(t, string(readFixture(t, name, "request.json")), string(env.rawBody(t, 0)))
		assert.True(t, strings.HasPrefix(resp.Content.Text(), "Based on the information that you're from Mexico, the largest city in your country is **Mexico City**"))
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 566, OutputTokens: 126}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("stream-parallel-tool-use-input-json-delta", func(t *testing.T) {
		const name = "stream-parallel-tool-use-input-json-delta"
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{
			Model: "anthropic:claude-sonnet-4-20250514", MaxOutputTokens: 4000,
			SystemPrompt: "You are a helpful assistant. Always use both add and multiply at the same time.",
			Messages:     []canonical.Message{userText("Add and multiply the number 2 and 3")},
			Tools: []canonical.ToolDefinition{
				{Name: "add", Description: "Add two numbers", InputSchema: numberSchema},
				{Name: "multiply", Description: "Multiply two numbers", InputSchema: numberSchema},
			},
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
		}
		evs, err := adaptertest.Collect(env.a.Stream(t.Context(), req))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		assert.JSONEq(t, fixtureRequestField(t, name, "messages"), sentField(t, env, "messages"))
		assert.JSONEq(t, fixtureRequestField(t, name, "tools"), sentField(t, env, "tools"))
		assert.JSONEq(t, `"You are a helpful assistant. Always use both add and multiply at the same time."`, sentField(t, env, "system"))
		assert.JSONEq(t, `{"type":"auto"}`, sentField(t, env, "tool_choice"))

		require.Len(t, resp.Content, 3)
		if diff := cmp.Diff(canonical.TextBlock{Text: "I'll add and multiply the numbers 2 and 3 for you."}, resp.Content[0]); diff != "" {
			t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
		}
		for i, want := range []string{"add", "multiply"} {
			tu, ok := resp.Content[i+1].(canonical.ToolUseBlock)
			require.True(t, ok)
			assert.Equal(t, want, tu.Name)
			assert.Equal(t, `{"a":2,"b":3}`, string(tu.Input))
		}
		// partial_json is the provider's fragments verbatim; the empty
		// first fragment is not emitted.
		var frags []string
		for _, ev := range adaptertest.EventsOf(evs, canonical.EventToolUseInput) {
			frags = append(frags, ev.PartialJSON)
		}
		if diff := cmp.Diff([]string{`{"a": 2`, `, "b"`, `: 3}`, `{"a": 2`, `, "b":`, ` 3}`}, frags); diff != "" {
			t.Errorf("frags mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, canonical.StopToolUse, resp.StopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 502, OutputTokens: 137}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("stream-server-tool-search-then-tool-use", func(t *testing.T) {
		const name = "stream-server-tool-search-then-tool-use"
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{
			Model: "anthropic:claude-sonnet-4-6", Messages: []canonical.Message{userText("What is the current USD to EUR exchange rate?")},
			Tools: []canonical.ToolDefinition{{Name: "get_exchange_rate", Description: "Look up the current exchange rate between two currencies.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"from_currency":{"type":"string"},"to_currency":{"type":"string"}},"required":["from_currency","to_currency"],"additionalProperties":false}`)}},
		}
		evs, err := adaptertest.Collect(env.a.Stream(t.Context(), req))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		assert.JSONEq(t, fixtureRequestField(t, name, "messages"), sentField(t, env, "messages"))

		require.Len(t, resp.Content, 3, "server_tool_use and tool_search_tool_result are skipped")
		if diff := cmp.Diff(canonical.TextBlock{Text: "Let me search for a tool that can provide current exchange rate information."}, resp.Content[0]); diff != "" {
			t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(canonical.TextBlock{Text: "I found the right tool! Let me fetch the current USD to EUR exchange rate for you."}, resp.Content[1]); diff != "" {
			t.Errorf("resp.Content[1] mismatch (-want +got):\n%s", diff)
		}
		tu, ok := resp.Content[2].(canonical.ToolUseBlock)
		require.True(t, ok)
		assert.Equal(t, "get_exchange_rate", tu.Name)
		assert.Equal(t, `{"from_currency":"USD","to_currency":"EUR"}`, string(tu.Input))
		starts := adaptertest.EventsOf(evs, canonical.EventToolUseStart)
		require.Len(t, starts, 1, "the server tool emits no tool events")
		assert.Equal(t, 2, starts[0].Index)
		assert.Equal(t, canonical.StopToolUse, resp.StopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 1591, OutputTokens: 175}, resp.Usage); diff != "" {
			t.Errorf("message_delta supersedes message_start (-want +got):\n%s", diff)
		}
	})

	t.Run("stream-thinking-signature", func(t *testing.T) {
		const name = "stream-thinking-signature"
		env := newEnv(t, serveFixture(t, name))
		req := &canonical.Request{
			Model: "anthropic:claude-sonnet-4-0", MaxOutputTokens: 4096, Thinking: &canonical.ThinkingConfig{},
			Messages: []canonical.Message{userText("How do I cross the street?")},
		}
		evs, err := adaptertest.Collect(env.a.Stream(t.Context(), req))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		assert.JSONEq(t, string(readFixture(t, name, "request.json")), string(env.rawBody(t, 0)))

		require.Len(t, resp.Content, 2)
		th, ok := resp.Content[0].(canonical.ThinkingBlock)
		require.True(t, ok)
		assert.Equal(t, "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about how to safely cross a street. This is basic safety information that could help prevent accidents.", th.Text)
		assert.True(t, strings.HasPrefix(th.Signature, "EvMCCkYICxgCKkCHP2cSuEdcJK/0rF"))
		assert.True(t, strings.HasSuffix(th.Signature, "gb7wwzDvP/UhjfQYAQ=="))
		assert.Len(t, th.Signature, 504)
		text, ok := resp.Content[1].(canonical.TextBlock)
		require.True(t, ok)
		assert.True(t, strings.HasPrefix(text.Text, "Here are the basic steps for safely crossing the street:\n\n**At intersections with traffic lights:**"))
		assert.True(t, strings.HasSuffix(text.Text, "Always prioritize safety over speed when crossing streets."))

		// The signature arrives on a final thinking.delta of the block.
		var sigs []canonical.StreamEvent
		for _, ev := range adaptertest.EventsOf(evs, canonical.EventThinkingDelta) {
			if ev.Signature != "" {
				sigs = append(sigs, ev)
			}
		}
		require.Len(t, sigs, 1)
		assert.Equal(t, 0, sigs[0].Index)
		assert.Equal(t, th.Signature, sigs[0].Signature)
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 43, OutputTokens: 282}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
		assert.JSONEq(t, `{"id":"msg_01ALwQ87pTS7hH1PjSdC9wJD"}`, string(resp.ProviderRaw))
		assert.Equal(t, "claude-sonnet-4-20250514", resp.ServedModel)
	})
}

// TestFixturesCovered fails when a fixture folder has no subtest above.
func TestFixturesCovered(t *testing.T) {
	entries, err := os.ReadDir(fixturesDir(t))
	require.NoError(t, err)
	known := map[string]bool{
		"error-400-invalid-request-with-request-id": true, "error-401-authentication-stream-request": true,
		"nonstream-image-base64-input": true, "nonstream-image-url-input": true, "nonstream-thinking-tool-use": true,
		"nonstream-tool-result-turn2": true, "stream-parallel-tool-use-input-json-delta": true,
		"stream-server-tool-search-then-tool-use": true, "stream-thinking-signature": true,
	}
	for _, e := range entries {
		if e.IsDir() {
			assert.True(t, known[e.Name()] || adaptertest.PendingRecordings["anthropic/"+e.Name()] != "" || adaptertest.PlatformRecordings["anthropic/"+e.Name()] != "", "fixture %s is not tested", e.Name())
		}
	}
}
