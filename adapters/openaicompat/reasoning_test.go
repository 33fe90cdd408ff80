package openaicompat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// recordedTurn decodes a recording of a thinking + tool turn through an
// adapter of kind, then sends the next request of that tool round trip
// (the assistant message as the session stores it, then the tool's
// result) to an adapter of kind next, and returns that request's
// messages and the next adapter's log.
func recordedTurn(t *testing.T, recording string, kind, next Kind) ([]map[string]json.RawMessage, *testEnv) {
	t.Helper()
	body, streamed := recordedBody(t, recording)
	srv := newStub(t).on(chatRoute,
		reply{header: recordedMeta(t, recording).Headers, body: string(body)},
		reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`})
	model := "m:recorded"
	caps := json.RawMessage(`{"supports_tools":true,"supports_thinking":true}`)
	cfg := newConfig(kind, srv.URL, newEnv())
	cfg.Models[model] = adapters.ModelConfig{Capabilities: caps}
	ids := adapters.NewToolIDMap()
	first := request(model, userMsg("What's the weather?"))
	first.Tools, first.ToolIDs = []canonical.ToolDefinition{getWeather}, ids
	resp, _, err := run(t, mustNew(t, cfg), first, streamed)
	require.NoError(t, err)

	asst := canonical.Message{ID: "m_asst", Role: canonical.RoleAssistant, Content: resp.Content,
		Metadata: canonical.MessageMetadata{Provider: string(kind), ProviderRaw: map[string]json.RawMessage{string(kind): resp.ProviderRaw}}}
	tu := resp.Content.ToolUses()
	require.Len(t, tu, 1)
	env := newEnv()
	cfg = newConfig(next, srv.URL, env)
	cfg.Models[model] = adapters.ModelConfig{Capabilities: caps}
	second := request(model, userMsg("What's the weather?"), asst, toolMsg(tu[0].ID, "18°C, sunny"))
	second.Tools, second.ToolIDs = []canonical.ToolDefinition{getWeather}, ids
	_, _, err = run(t, mustNew(t, cfg), second, false)
	require.NoError(t, err)

	var sent struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	reqs := srv.requests(chatRoute)
	require.Len(t, reqs, 2)
	require.NoError(t, json.Unmarshal(reqs[1].Body, &sent))
	require.Len(t, sent.Messages, 3)
	return sent.Messages, env
}

// TestReasoningDetailsRoundTrip: OpenRouter's reasoning_details of a
// recorded thinking + tool turn go back on the assistant message of the
// next request byte for byte (the streamed summary entry merged, the
// encrypted entry verbatim), with no lossy-projection WARN; sent to
// another server they do not, and the thinking is dropped with the WARN.
func TestReasoningDetailsRoundTrip(t *testing.T) {
	want := strings.TrimSpace(string(readTestdata(t, "openrouter-stream-reasoning-details.json")))

	msgs, env := recordedTurn(t, "openrouter-stream-reasoning-details-tool-call", KindOpenRouter, KindOpenRouter)
	asst := msgs[1]
	assert.Equal(t, `"assistant"`, string(asst["role"]))
	assert.Equal(t, want, string(asst["reasoning_details"]), "reasoning_details byte for byte")
	assert.Contains(t, string(asst["tool_calls"]), `"id":"call_51659697"`)
	assert.NotContains(t, asst, "reasoning_content")
	assert.Empty(t, env.log.warnings(driver.LossyProjectionMsg), "the reasoning is carried, not dropped")

	msgs, env = recordedTurn(t, "openrouter-stream-reasoning-details-tool-call", KindOpenRouter, KindVLLM)
	assert.NotContains(t, msgs[1], "reasoning_details", "another provider gets no reasoning_details")
	drops := env.log.warnings(driver.LossyProjectionMsg)
	require.Len(t, drops, 2, "the thinking and redacted_thinking blocks are dropped with the WARN")
	assert.Equal(t, "thinking", drops[0]["block_type"])
	assert.Equal(t, "redacted_thinking", drops[1]["block_type"])
}

// TestReasoningDetailsNonStreamedRoundTrip: a non-streamed body's entries
// go back exactly as the body had them.
func TestReasoningDetailsNonStreamedRoundTrip(t *testing.T) {
	body := `{"id":"gen-1","object":"chat.completion","model":"anthropic/claude-sonnet-4.5","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","reasoning":"Need the weather.","reasoning_details":[{"type":"reasoning.text","text":"Need the weather.","signature":"RXFzaWctMQ==+/","format":"anthropic-claude-v1","index":0}],"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"weather","arguments":"{\"location\":\"Rome\"}"}}]}}],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`
	srv := newStub(t).on(chatRoute, reply{body: body}, reply{body: `{"choices":[{"index":0,"message":{"content":"Sunny."},"finish_reason":"stop"}]}`})
	cfg := newConfig(KindOpenRouter, srv.URL, newEnv())
	a := mustNew(t, cfg)
	ids := adapters.NewToolIDMap()
	req := request("openrouter:m", userMsg("Weather in Rome?"))
	req.Tools, req.ToolIDs = []canonical.ToolDefinition{getWeather}, ids
	resp, _, err := run(t, a, req, false)
	require.NoError(t, err)
	require.Len(t, resp.Content, 2)
	assert.Equal(t, canonical.ThinkingBlock{Text: "Need the weather.", Signature: "RXFzaWctMQ==+/"}, resp.Content[0], "the entry's signature is the block's")

	asst := canonical.Message{ID: "m_a", Role: canonical.RoleAssistant, Content: resp.Content,
		Metadata: canonical.MessageMetadata{Provider: "openrouter", ProviderRaw: map[string]json.RawMessage{"openrouter": resp.ProviderRaw}}}
	req = request("openrouter:m", userMsg("Weather in Rome?"), asst, toolMsg(resp.Content.ToolUses()[0].ID, "sunny"))
	req.Tools, req.ToolIDs = []canonical.ToolDefinition{getWeather}, ids
	_, _, err = run(t, a, req, false)
	require.NoError(t, err)
	var sent struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(srv.requests(chatRoute)[1].Body, &sent))
	assert.Equal(t, `[{"type":"reasoning.text","text":"Need the weather.","signature":"RXFzaWctMQ==+/","format":"anthropic-claude-v1","index":0}]`,
		string(sent.Messages[1]["reasoning_details"]))
}

// TestStreamedDetailsMerge: streamed reasoning.text deltas of one index
// are one entry and one thinking block, the signature of the last delta
// its signature; an entry after a signed one starts a new block.
func TestStreamedDetailsMerge(t *testing.T) {
	chunk := func(details string) string {
		return `{"id":"gen-2","model":"anthropic/claude","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_details":` + details + `},"finish_reason":null}]}`
	}
	stream := sse(
		chunk(`[{"type":"reasoning.text","text":"Step ","format":"anthropic-claude-v1","index":0}]`),
		chunk(`[{"type":"reasoning.text","text":"one.","format":"anthropic-claude-v1","index":0}]`),
		chunk(`[{"type":"reasoning.text","text":"","signature":"c2lnMQ==","format":"anthropic-claude-v1","index":0}]`),
		chunk(`[{"type":"reasoning.text","text":"Step two.","format":"anthropic-claude-v1","index":0}]`),
		`{"id":"gen-2","model":"anthropic/claude","choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`,
	)
	srv := newStub(t).on(chatRoute, reply{header: map[string]string{"content-type": "text/event-stream"}, body: stream})
	resp, _, err := run(t, mustNew(t, newConfig(KindOpenRouter, srv.URL, newEnv())), request("openrouter:m", userMsg("Count.")), true)
	require.NoError(t, err)
	want := canonical.Blocks{
		canonical.ThinkingBlock{Text: "Step one.", Signature: "c2lnMQ=="},
		canonical.ThinkingBlock{Text: "Step two."},
		canonical.TextBlock{Text: "Done."},
	}
	assert.Equal(t, want, resp.Content)
	var raw struct {
		ReasoningDetails json.RawMessage `json:"reasoning_details"`
	}
	require.NoError(t, json.Unmarshal(resp.ProviderRaw, &raw))
	assert.Equal(t, `[{"type":"reasoning.text","text":"Step one.","format":"anthropic-claude-v1","index":0,"signature":"c2lnMQ=="},{"type":"reasoning.text","text":"Step two.","format":"anthropic-claude-v1","index":0}]`,
		string(raw.ReasoningDetails))
}

// deepseekThinking is the reasoning_content of the DeepSeek recording,
// its deltas joined by hand.
const deepseekThinking = `The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".`

// TestReasoningContentReplay: DeepSeek's thinking mode needs the
// reasoning_content of an assistant message that called tools back in
// every later request; the recorded turn's thinking goes back verbatim
// on its message. Other kinds send none.
func TestReasoningContentReplay(t *testing.T) {
	msgs, env := recordedTurn(t, "deepseek-stream-reasoning-then-tool-call", KindDeepSeek, KindDeepSeek)
	var got string
	require.NoError(t, json.Unmarshal(msgs[1]["reasoning_content"], &got))
	assert.Equal(t, deepseekThinking, got)
	assert.Contains(t, string(msgs[1]["tool_calls"]), `"id":"call_00_ioIn7yN9p1ZOMNpDLwd4MgAF"`)
	assert.Empty(t, env.log.warnings(driver.LossyProjectionMsg))

	msgs, _ = recordedTurn(t, "deepseek-stream-reasoning-then-tool-call", KindDeepSeek, KindGeneric)
	assert.NotContains(t, msgs[1], "reasoning_content")
}

// TestReasoningContentTurns: reasoning_content goes back on every
// assistant message of a user turn with tool calls, and on none of a turn
// without; nor on another provider's message.
func TestReasoningContentTurns(t *testing.T) {
	srv := newStub(t).on(chatRoute, reply{body: `{"choices":[{"index":0,"message":{"content":"ok"},"finish_reason":"stop"}]}`})
	a := mustNew(t, newConfig(KindDeepSeek, srv.URL, newEnv()))
	ids := adapters.NewToolIDMap()
	think := func(provider, text string, more ...canonical.Block) canonical.Message {
		return assistantMsg(provider, append(canonical.Blocks{canonical.ThinkingBlock{Text: text}}, more...)...)
	}
	call := canonical.ToolUseBlock{ID: "tu_01J000000000000000000000C1", Name: "weather", Input: json.RawMessage(`{"location":"Oslo"}`)}
	req := request("deepseek:m",
		userMsg("Weather in Oslo?"),
		think("deepseek", "call it", call),
		toolMsg(call.ID, "cold"),
		think("deepseek", "answer it", canonical.TextBlock{Text: "Cold."}),
		userMsg("Thanks. A joke?"),
		think("deepseek", "joke time", canonical.TextBlock{Text: "Knock knock."}),
		userMsg("Another?"),
		think("anthropic", "foreign", canonical.TextBlock{Text: "No."}),
		userMsg("Please."),
	)
	req.Tools, req.ToolIDs = []canonical.ToolDefinition{getWeather}, ids
	_, _, err := run(t, a, req, false)
	require.NoError(t, err)
	var sent struct {
		Messages []struct {
			Role             string  `json:"role"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(srv.requests(chatRoute)[0].Body, &sent))
	var got []string
	for _, m := range sent.Messages {
		if m.Role == "assistant" {
			r := "-"
			if m.ReasoningContent != nil {
				r = *m.ReasoningContent
			}
			got = append(got, r)
		}
	}
	assert.Equal(t, []string{"call it", "answer it", "-", "-"}, got)
}
