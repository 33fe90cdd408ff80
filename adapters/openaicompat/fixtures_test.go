package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// geminiSignaturePrefix is the start of the thought signature in the
// gemini-openai-compat fixture, read by hand from its response.json.
const geminiSignaturePrefix = "AVSoXO4AzAXs7GGvOY63fp8CwJK3yR8HbUPhxhfN2HaPvJnscmZCkaWvckz5NL3nIMK"

var getCurrentTime = tool("get_current_time", `{"additionalProperties":false,"properties":{},"type":"object"}`)

// geminiCompat returns an adapter configured for Gemini's
// OpenAI-compatible endpoint (a generic server whose API lives at
// /v1beta/openai, not /v1) on srv, as the documentation gives it: the
// whole API root as base_url and api_prefix "".
func geminiCompat(t *testing.T, srv *stub) *Adapter {
	return geminiCompatAt(t, srv.URL+"/v1beta/openai", "")
}

// geminiCompatAt is geminiCompat with a given base_url and api_prefix.
func geminiCompatAt(t *testing.T, baseURL, prefix string) *Adapter {
	cfg := newConfig(KindGeneric, baseURL, newEnv())
	cfg.Name = "gemini-compat"
	cfg.Options["api_prefix"] = prefix
	cfg.Models["gemini-compat:gemini-2.5-pro-preview-05-06"] = adapters.ModelConfig{
		WireName:     "gemini-2.5-pro-preview-05-06",
		Capabilities: json.RawMessage(`{"supports_tools":true}`),
	}
	return mustNew(t, cfg)
}

const geminiRoute = "POST /v1beta/openai/chat/completions"

// TestGeminiCompatFixture decodes the recording of Gemini's compatible
// endpoint: a tool call with an empty id and the thought signature in the
// message's non-standard extra_content, which goes back to the server on
// the next turn.
func TestGeminiCompatFixture(t *testing.T) {
	const name = "gemini-openai-compat-tool-call-thought-signature"
	body := fixture(t, "openai-chat", name, "response.json")
	srv := newStub(t).on(geminiRoute, reply{body: string(body)}, reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"It is 10:12."},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":6,"total_tokens":56}}`})
	a := geminiCompat(t, srv)
	ids := adapters.NewToolIDMap()
	user := userMsg("What is the current time?")
	req := request("gemini-compat:gemini-2.5-pro-preview-05-06", user)
	req.Tools, req.ToolIDs, req.ToolChoice = []canonical.ToolDefinition{getCurrentTime}, ids, &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}

	resp, err := a.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	assert.Equal(t, "tool_calls", resp.ProviderStopReason)
	uses := resp.Content.ToolUses()
	require.Len(t, uses, 1)
	require.Len(t, resp.Content, 1)
	assert.Equal(t, "get_current_time", uses[0].Name)
	assert.JSONEq(t, `{}`, string(uses[0].Input))
	assert.True(t, canonical.IsToolUseID(uses[0].ID), "an empty provider id gets a canonical one: %q", uses[0].ID)
	// total_tokens 109 = prompt 35 + completion 12 + 62 thinking tokens
	// the endpoint leaves out of completion_tokens: output, as reasoning.
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 35, OutputTokens: 12 + 62, ReasoningTokens: 62}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
	assert.True(t, bytes.Equal(body, resp.RawBody))

	raw := decodeJSON(t, resp.ProviderRaw)
	sig, _ := dig(t, raw, "extra_content", "google", "thought_signature").(string)
	assert.True(t, strings.HasPrefix(sig, geminiSignaturePrefix), "signature kept: %.40s", sig)
	assert.Equal(t, true, dig(t, raw, "extra_content", "google", "thought"))

	// The request mapped the parts the recorded request has.
	sent := decodeJSON(t, srv.requests(geminiRoute)[0].Body)
	assert.Equal(t, "gemini-2.5-pro-preview-05-06", sent["model"])
	assert.Equal(t, "auto", sent["tool_choice"])
	assert.Equal(t, "get_current_time", dig(t, sent, "tools", 0, "function", "name"))
	assert.Equal(t, false, dig(t, sent, "tools", 0, "function", "parameters", "additionalProperties"))
	assert.Equal(t, "What is the current time?", dig(t, sent, "messages", 0, "content"))
	assert.NotEqual(t, true, sent["stream"])

	// Next turn, back to the same provider: extra_content rides along.
	asst := assistantMsg(a.Name(), resp.Content...)
	asst.Metadata.ProviderRaw = map[string]json.RawMessage{a.Name(): resp.ProviderRaw}
	next := request(req.Model, user, asst, toolMsg(uses[0].ID, "10:12"))
	next.Tools, next.ToolIDs = req.Tools, ids
	_, err = a.Complete(context.Background(), next)
	require.NoError(t, err)
	sent = decodeJSON(t, srv.requests(geminiRoute)[1].Body)
	replayed, _ := dig(t, sent, "messages", 1, "extra_content", "google", "thought_signature").(string)
	assert.Equal(t, sig, replayed)
	assert.Equal(t, uses[0].ID, dig(t, sent, "messages", 1, "tool_calls", 0, "id"), "the canonical id stands in for the empty one")
	assert.Equal(t, uses[0].ID, dig(t, sent, "messages", 2, "tool_call_id"))
}

// TestToolCallExtraContent covers Gemini's current shape: extra_content on
// each tool call, streamed or not, sent back on the same tool call, and
// only to the provider that produced it.
func TestToolCallExtraContent(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "complete", true: "stream"}[streamed], func(t *testing.T) {
			first := readTestdata(t, "gemini-tool-call-extra-content.json")
			if streamed {
				first = readTestdata(t, "gemini-tool-call-extra-content.sse")
			}
			srv := newStub(t).on(geminiRoute, reply{body: string(first)}, reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}]}`},
				reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}]}`})
			// Both spellings of the endpoint: the API root as base_url, or
			// the server root with the prefix.
			a := geminiCompat(t, srv)
			if streamed {
				a = geminiCompatAt(t, srv.URL, "/v1beta/openai")
			}
			ids := adapters.NewToolIDMap()
			user := userMsg("Weather in Paris and Rome?")
			req := request("gemini-compat:gemini-2.5-pro-preview-05-06", user)
			req.Tools, req.ToolIDs = []canonical.ToolDefinition{weatherTool}, ids
			resp, _, err := run(t, a, req, streamed)
			require.NoError(t, err)
			uses := resp.Content.ToolUses()
			require.Len(t, uses, 2)
			// total_tokens 120 = 40 + 20 + 60 unlisted thinking tokens.
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 40, OutputTokens: 20 + 60, ReasoningTokens: 60}, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}

			var raw openai.ChatProviderRaw
			require.NoError(t, json.Unmarshal(resp.ProviderRaw, &raw))
			assert.Empty(t, raw.ExtraContent)
			require.Contains(t, raw.ToolCalls, uses[0].ID)
			assert.JSONEq(t, `{"google":{"thought_signature":"sig-A"}}`, string(raw.ToolCalls[uses[0].ID].ExtraContent))
			assert.NotContains(t, raw.ToolCalls, uses[1].ID, "the second call has no extra_content")

			for _, provider := range []string{a.Name(), "gemini"} {
				asst := assistantMsg(provider, resp.Content...)
				asst.Metadata.ProviderRaw = map[string]json.RawMessage{provider: resp.ProviderRaw}
				next := request(req.Model, user, asst, toolMsg(uses[0].ID, "21°C"), toolMsg(uses[1].ID, "25°C"))
				next.Tools, next.ToolIDs = req.Tools, ids
				_, err = a.Complete(context.Background(), next)
				require.NoError(t, err)
				reqs := srv.requests(geminiRoute)
				sent := decodeJSON(t, reqs[len(reqs)-1].Body)
				calls := dig(t, sent, "messages", 1, "tool_calls").([]any)
				require.Len(t, calls, 2)
				assert.Equal(t, "function-call-1", dig(t, calls[0], "id"))
				if provider == a.Name() {
					assert.Equal(t, "sig-A", dig(t, calls[0], "extra_content", "google", "thought_signature"))
				} else {
					assert.NotContains(t, calls[0], "extra_content", "another provider's raw data is never sent")
				}
				assert.NotContains(t, calls[1], "extra_content")
			}
		})
	}
}

// chatFixture is one recording of openai-chat and what it must decode to,
// read by hand from the recorded body.
type chatFixture struct {
	name   string
	tools  []canonical.ToolDefinition
	text   string // prefix of the text
	calls  []string
	inputs []string
	stop   canonical.StopReason
	usage  canonical.TokenUsage
	class  canonical.ErrorClass // for error recordings
	msg    string
}

var chatFixtures = []chatFixture{
	{name: "gemini-openai-compat-tool-call-thought-signature", tools: []canonical.ToolDefinition{getCurrentTime},
		calls: []string{"get_current_time"}, inputs: []string{`{}`}, stop: canonical.StopToolUse, usage: canonical.TokenUsage{InputTokens: 35, OutputTokens: 12 + 62, ReasoningTokens: 62}},
	{name: "stream-text-include-usage", text: "The capital of the UK is London.", stop: canonical.StopEndTurn, usage: canonical.TokenUsage{InputTokens: 78, OutputTokens: 9}},
	{name: "stream-tool-call-include-usage", tools: []canonical.ToolDefinition{tool("get_capital", `{"type":"object","properties":{"country":{"type":"string"}},"required":["country"],"additionalProperties":false}`)},
		calls: []string{"get_capital"}, inputs: []string{`{"country":"UK"}`}, stop: canonical.StopToolUse, usage: canonical.TokenUsage{InputTokens: 53, OutputTokens: 15}},
	{name: "stream-parallel-tool-calls", tools: []canonical.ToolDefinition{tool("get_country", `{"type":"object","properties":{}}`), tool("get_product_name", `{"type":"object","properties":{}}`)},
		calls: []string{"get_country", "get_product_name"}, inputs: []string{`{}`, `{}`}, stop: canonical.StopToolUse, usage: canonical.TokenUsage{InputTokens: 364, OutputTokens: 40}},
	{name: "stream-reasoning-o3-mini-include-usage", text: "To find the factorial", stop: canonical.StopEndTurn, usage: canonical.TokenUsage{InputTokens: 23, OutputTokens: 523, ReasoningTokens: 384}},
	{name: "stream-image-data-url-input", text: "A cute cartoon star with a face and pink cheeks, leaving a rainbow trail on a purple background with sparkles.", stop: canonical.StopEndTurn, usage: canonical.TokenUsage{InputTokens: 232, OutputTokens: 96, ReasoningTokens: 64}},
	{name: "nonstream-tool-call", tools: []canonical.ToolDefinition{tool("get_capital", `{"type":"object","properties":{"country":{"type":"string"}},"required":["country"]}`)},
		calls: []string{"get_capital"}, inputs: []string{`{"country":"England"}`}, stop: canonical.StopToolUse, usage: canonical.TokenUsage{InputTokens: 104, OutputTokens: 16}},
	{name: "nonstream-image-url-input", text: "The image is an emoji of a parrot.", stop: canonical.StopEndTurn, usage: canonical.TokenUsage{InputTokens: 267, OutputTokens: 106}},
	{name: "error-400-param-code-null", class: canonical.ErrInvalidRequest, msg: "Web search options not supported with this model."},
	{name: "error-400-unsupported-value", class: canonical.ErrInvalidRequest, msg: "Unsupported value: 'messages[0].role' does not support 'system' with this model."},
}

// TestChatFixtures decodes every Chat Completions recording through this
// adapter as a generic server would be configured (reasoning fields on):
// the compatible server's recording, and OpenAI's own, which every
// compatible server imitates.
func TestChatFixtures(t *testing.T) {
	for _, fx := range chatFixtures {
		t.Run(fx.name, func(t *testing.T) {
			dir := filepath.Join(adaptertest.FixturesDir(t), "openai-chat", fx.name)
			var meta struct {
				Status int `json:"status"`
			}
			require.NoError(t, json.Unmarshal(fixture(t, "openai-chat", fx.name, "meta.json"), &meta))
			body, err := os.ReadFile(filepath.Join(dir, "response.txt"))
			streamed := err == nil
			if !streamed {
				body = fixture(t, "openai-chat", fx.name, "response.json")
			}
			srv := newStub(t).on(chatRoute, reply{status: meta.Status, body: string(body)})
			cfg := newConfig(KindGeneric, srv.URL, newEnv())
			cfg.Options["reasoning_fields"] = []any{"reasoning_content"}
			cfg.Models["generic:recorded"] = adapters.ModelConfig{Capabilities: json.RawMessage(`{"supports_tools":true}`)}
			a := mustNew(t, cfg)
			req := request("generic:recorded", userMsg("recorded request"))
			req.Tools = fx.tools

			resp, evs, err := run(t, a, req, streamed)
			if fx.class != "" {
				ae := adapterError(t, err)
				assert.Equal(t, fx.class, ae.Class)
				assert.Equal(t, meta.Status, ae.Status)
				assert.Equal(t, fx.msg, ae.Message)
				return
			}
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(resp.Content.Text(), fx.text), "text %.60q", resp.Content.Text())
			assert.Equal(t, fx.stop, resp.StopReason)
			if diff := cmp.Diff(fx.usage, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}
			uses := resp.Content.ToolUses()
			require.Len(t, uses, len(fx.calls))
			for i, u := range uses {
				assert.Equal(t, fx.calls[i], u.Name)
				assert.JSONEq(t, fx.inputs[i], string(u.Input))
			}
			if streamed {
				assert.Len(t, adaptertest.EventsOf(evs, canonical.EventToolUseStart), len(fx.calls))
			} else {
				assert.True(t, bytes.Equal(body, resp.RawBody))
			}
		})
	}
}

// TestChatFixturesCovered keeps the table above in step with the folder.
func TestChatFixturesCovered(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(adaptertest.FixturesDir(t), "openai-chat"))
	require.NoError(t, err)
	known := map[string]bool{}
	for _, fx := range chatFixtures {
		known[fx.name] = true
	}
	for _, e := range entries {
		if e.IsDir() {
			assert.True(t, known[e.Name()] || adaptertest.PendingRecordings["openai-chat/"+e.Name()] != "" || adaptertest.PlatformRecordings["openai-chat/"+e.Name()] != "" || adaptertest.ServerRecordings["openai-chat/"+e.Name()] != "", "fixture %s is not in chatFixtures", e.Name())
		}
	}
}
