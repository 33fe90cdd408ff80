package emulator_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func TestProfilesAreListedAndFound(t *testing.T) {
	var names []string
	for _, p := range emulator.Profiles() {
		names = append(names, p.Name)
		assert.NotEmpty(t, p.APIs, p.Name)
		assert.NotEmpty(t, p.Server, p.Name)
		assert.NotEmpty(t, p.Evidence, p.Name)
	}
	assert.Equal(t, []string{"anthropic", "deepseek", "gemini", "gemini-3", "llamacpp", "lmstudio", "ollama", "ollama-native", "openai", "openrouter", "vllm"}, names)

	for _, kind := range []string{"vllm", "ollama", "lmstudio", "llamacpp", "openrouter"} {
		p, ok := emulator.ProfileForServer(kind)
		assert.True(t, ok, kind)
		assert.Equal(t, kind, p.Name)
	}
	_, ok := emulator.ProfileForServer("generic")
	assert.False(t, ok, "a generic server gets the OpenAI reference")

	assert.Equal(t, "gemini-3", emulator.ReferenceProfile(emulator.Gemini, "gemini-3-pro-preview").Name)
	assert.Equal(t, "gemini", emulator.ReferenceProfile(emulator.Gemini, "gemini-2.5-flash").Name)
	assert.Equal(t, "openai", emulator.ReferenceProfile(emulator.OpenAIChat, "gpt-5").Name)

	p, _ := emulator.LookupProfile("openrouter")
	p.Chat.Comments[0] = "changed"
	q, _ := emulator.LookupProfile("openrouter")
	assert.Equal(t, "OPENROUTER PROCESSING", q.Chat.Comments[0], "LookupProfile returns a copy")
}

// chatChunks streams reply from the emulator as Chat Completions and
// returns the raw body and its decoded chunks ([DONE] excluded).
func chatChunks(t *testing.T, reply emulator.Reply, includeUsage bool, opts ...emulator.Option) (string, []map[string]any) {
	t.Helper()
	srv := start(t, append(opts, emulator.WithReplies(reply))...)
	req := `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]`
	if includeUsage {
		req += `,"stream_options":{"include_usage":true}`
	}
	status, _, body := do(t, srv, chatCall(req+"}"))
	require.Equal(t, 200, status, body)
	var out []map[string]any
	for _, ev := range splitSSE(t, body, "\n\n") {
		if ev.data == "[DONE]" {
			continue
		}
		out = append(out, obj(t, ev.data))
	}
	require.True(t, strings.HasSuffix(body, "data: [DONE]\n\n"), body)
	return body, out
}

var readCall = emulator.Reply{
	ToolCalls: []emulator.ToolCall{{Name: "read_file", Input: json.RawMessage(`{"path":"README.md","lines":[1,2]}`)}},
	Usage:     canonical.TokenUsage{InputTokens: 40, OutputTokens: 9},
}

func withProfile(r emulator.Reply, name string) emulator.Reply {
	r.Profile = name
	return r
}

// finishChoice returns the choice carrying a finish_reason.
func finishChoices(t *testing.T, chunks []map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ch := range chunks {
		choices := ch["choices"].([]any)
		if len(choices) == 0 {
			continue
		}
		c := choices[0].(map[string]any)
		if c["finish_reason"] != nil {
			out = append(out, c)
		}
	}
	return out
}

// toolArguments joins the argument fragments of tool call 0.
func toolArguments(t *testing.T, chunks []map[string]any) (string, int) {
	t.Helper()
	args, pieces := "", 0
	for _, ch := range chunks {
		choices := ch["choices"].([]any)
		if len(choices) == 0 {
			continue
		}
		calls, ok := choices[0].(map[string]any)["delta"].(map[string]any)["tool_calls"].([]any)
		if !ok {
			continue
		}
		a := calls[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
		if a != "" {
			args += a
			pieces++
		}
	}
	return args, pieces
}

func TestChatProfiles(t *testing.T) {
	t.Run("vllm", func(t *testing.T) {
		_, chunks := chatChunks(t, withProfile(readCall, "vllm"), true)
		fin := finishChoices(t, chunks)
		require.Len(t, fin, 1)
		assert.Equal(t, "stop", fin[0]["finish_reason"], "vLLM ends a forced tool call with stop")
		assert.Contains(t, fin[0], "stop_reason", "vLLM adds stop_reason to the finish choice")
		args, pieces := toolArguments(t, chunks)
		assert.Equal(t, `{"path": "README.md", "lines": [1, 2]}`, args, "json.dumps spacing")
		assert.Greater(t, pieces, 5)
		last := chunks[len(chunks)-1]
		assert.Equal(t, []any{}, last["choices"], "usage in a chunk of its own")
		assert.Equal(t, 40, num(t, at(t, last, "usage", "prompt_tokens")))
		assert.NotContains(t, chunks[0], "obfuscation")
	})
	t.Run("ollama", func(t *testing.T) {
		_, chunks := chatChunks(t, withProfile(readCall, "ollama"), false)
		for _, ch := range chunks {
			assert.Equal(t, "fp_ollama", ch["system_fingerprint"])
			assert.Equal(t, "assistant", at(t, ch, "choices", 0, "delta", "role"), "role on every chunk")
			assert.NotContains(t, ch, "usage", "no usage without include_usage")
		}
		args, pieces := toolArguments(t, chunks)
		assert.Equal(t, `{"path":"README.md","lines":[1,2]}`, args)
		assert.Equal(t, 1, pieces, "a tool call arrives whole")
		fin := finishChoices(t, chunks)
		require.Len(t, fin, 1)
		assert.Equal(t, "stop", fin[0]["finish_reason"])
	})
	t.Run("openrouter", func(t *testing.T) {
		body, chunks := chatChunks(t, withProfile(readCall, "openrouter"), false)
		assert.True(t, strings.HasPrefix(body, ": OPENROUTER PROCESSING\n\n"), body)
		fin := finishChoices(t, chunks)
		require.Len(t, fin, 2, "the finish chunk comes twice, the second with usage")
		for _, f := range fin {
			assert.Equal(t, "tool_calls", f["finish_reason"])
			assert.Equal(t, "tool_calls", f["native_finish_reason"])
		}
		assert.NotContains(t, chunks[len(chunks)-2], "usage")
		assert.Equal(t, 9, num(t, at(t, chunks[len(chunks)-1], "usage", "completion_tokens")), "usage even without include_usage")
	})
	t.Run("llamacpp", func(t *testing.T) {
		_, chunks := chatChunks(t, withProfile(emulator.Reply{Text: "Hello there", Usage: readCall.Usage}, "llamacpp"), false)
		last := chunks[len(chunks)-1]
		assert.Equal(t, "stop", at(t, last, "choices", 0, "finish_reason"))
		assert.Equal(t, 40, num(t, at(t, last, "usage", "prompt_tokens")), "usage on the finish chunk")
		assert.Equal(t, 9, num(t, at(t, last, "timings", "predicted_n")))
		for _, ch := range chunks[:len(chunks)-1] {
			assert.NotContains(t, ch, "usage")
		}
	})
	t.Run("deepseek", func(t *testing.T) {
		_, chunks := chatChunks(t, withProfile(readCall, "deepseek"), false)
		for _, ch := range chunks[:len(chunks)-1] {
			assert.Contains(t, ch, "usage")
			assert.Nil(t, ch["usage"], "usage null until the finish chunk")
		}
		last := chunks[len(chunks)-1]
		assert.Equal(t, "tool_calls", at(t, last, "choices", 0, "finish_reason"))
		assert.Equal(t, 9, num(t, at(t, last, "usage", "completion_tokens")))
	})
	t.Run("server profile and reasoning field", func(t *testing.T) {
		p, _ := emulator.LookupProfile("ollama")
		_, chunks := chatChunks(t, emulator.Reply{Thinking: "hmm", Text: "ok"}, false, emulator.WithProfile(p))
		assert.Equal(t, map[string]any{"role": "assistant", "reasoning": "hmm"}, at(t, chunks[0], "choices", 0, "delta"),
			"every delta carries the role, so none comes alone")
		assert.Equal(t, "fp_ollama", chunks[0]["system_fingerprint"])
	})
}

func TestUnknownProfileIsAScriptError(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "x", Profile: "nope"}))
	status, _, body := do(t, srv, chatCall(`{"model":"m","messages":[]}`))
	assert.Equal(t, 500, status)
	assert.Contains(t, body, `unknown profile \"nope\"`)
}

func TestProfileForAnotherAPIGivesTheReference(t *testing.T) {
	srv := start(t, emulator.WithReplies(withProfile(emulator.Reply{Text: "hi"}, "vllm")))
	_, _, body := do(t, srv, anthropicCall(`{"model":"m","max_tokens":9,"messages":[],"stream":true}`))
	assert.Contains(t, body, "event: ping", "the Anthropic reference still pings")
}

func TestResponsesLMStudioArgumentsOnlyInDone(t *testing.T) {
	reply := readCall
	reply.Thinking = "The user wants a file."
	srv := start(t, emulator.WithReplies(withProfile(reply, "lmstudio")))
	_, h, body := do(t, srv, responsesCall(`{"model":"m","stream":true,"input":"x"}`))
	assert.Empty(t, h.Get("X-Request-Id"))
	var names []string
	for _, ev := range splitSSE(t, body, "\n\n") {
		names = append(names, ev.name)
		if ev.name == "response.function_call_arguments.done" {
			assert.Equal(t, `{"path":"README.md","lines":[1,2]}`, obj(t, ev.data)["arguments"])
		}
	}
	assert.NotContains(t, names, "response.function_call_arguments.delta")
	assert.Contains(t, names, "response.function_call_arguments.done")
	assert.Equal(t, []string{"response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.delta",
		"response.reasoning_text.done", "response.content_part.done", "response.output_item.done"}, names[2:9],
		"the raw reasoning as reasoning_text parts, unasked, as LM Studio streams it")
	assert.NotContains(t, names, "response.reasoning_summary_part.added")
}

func TestGemini3EndsTextTurnsWithAnEmptyChunk(t *testing.T) {
	reply := emulator.Reply{Text: "Mexico City.", Usage: canonical.TokenUsage{InputTokens: 5, OutputTokens: 3}}
	for _, tt := range []struct {
		model  string
		chunks int
	}{{"gemini-2.5-flash", 1}, {"gemini-3-pro-preview", 2}} {
		t.Run(tt.model, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(reply), emulator.WithChunkSize(100))
			_, _, body := do(t, srv, geminiCall(tt.model, true, `{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`))
			events := splitSSE(t, body, "\r\n\r\n")
			require.Len(t, events, tt.chunks)
			last := obj(t, events[len(events)-1].data)
			assert.Equal(t, "STOP", at(t, last, "candidates", 0, "finishReason"))
			if tt.chunks == 2 {
				assert.Equal(t, "", at(t, last, "candidates", 0, "content", "parts", 0, "text"))
				assert.NotContains(t, at(t, obj(t, events[0].data), "candidates", 0), "finishReason")
			}
			assert.Equal(t, 3, num(t, at(t, last, "usageMetadata", "candidatesTokenCount")))
		})
	}
}

func TestAnthropicAcceptsBearerAndSendsRefusalDetails(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{StopReason: canonical.StopContentFilter, ErrorMessage: "declined"}))
	status, _, body := do(t, srv, call{path: "/v1/messages", body: `{"model":"m","max_tokens":9,"messages":[]}`,
		header: map[string]string{"Authorization": "Bearer " + testKey, "anthropic-version": anthropicVer}})
	require.Equal(t, 200, status, body)
	m := obj(t, body)
	assert.Equal(t, "refusal", m["stop_reason"])
	assert.Equal(t, map[string]any{"type": "refusal", "category": nil, "explanation": "declined"}, m["stop_details"])
}
