package openaicompat

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

func TestNewRejectsBadConfig(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(*adapters.Config)
		wantMsg []string
	}{
		{"no base_url", func(c *adapters.Config) { c.BaseURL = "" }, []string{`"vllm"`, "base_url is required"}},
		{"base_url without a scheme", func(c *adapters.Config) { c.BaseURL = "localhost:8000" }, []string{"base_url", "http(s) URL"}},
		{"unknown kind", func(c *adapters.Config) { c.Options["kind"] = "tgi" }, []string{"options.kind", `"tgi"`, "vllm, ollama, lmstudio, llamacpp, openrouter, deepseek, generic"}},
		{"kind not a string", func(c *adapters.Config) { c.Options["kind"] = 3 }, []string{"options.kind", "want a string"}},
		{"misspelt option", func(c *adapters.Config) { c.Options["tool_result_as_user"] = true }, []string{"options.tool_result_as_user", "unknown option", "tool_results_as_user"}},
		{"option of the wrong type", func(c *adapters.Config) {
			c.Models["vllm:m"] = adapters.ModelConfig{Options: map[string]any{"no_strict": "yes"}}
		}, []string{"models.vllm:m.options.no_strict", "want true or false"}},
		{"kind per model", func(c *adapters.Config) {
			c.Models["vllm:m"] = adapters.ModelConfig{Options: map[string]any{"kind": "ollama"}}
		}, []string{"models.vllm:m.options.kind", "whole adapter"}},
		{"bad max_tokens_field", func(c *adapters.Config) { c.Options["max_tokens_field"] = "n_predict" }, []string{"options.max_tokens_field", `"n_predict"`}},
		{"bad reasoning field", func(c *adapters.Config) { c.Options["reasoning_fields"] = []any{"reasoning", "thoughts"} }, []string{"options.reasoning_fields", `"thoughts"`}},
		{"bad api_prefix", func(c *adapters.Config) { c.Options["api_prefix"] = "v1" }, []string{"options.api_prefix"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newConfig(KindVLLM, "http://127.0.0.1:8000", newEnv())
			tc.edit(&cfg)
			_, err := New(cfg)
			ae := adapterError(t, err)
			assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
			assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
			for _, s := range tc.wantMsg {
				assert.Contains(t, ae.Error(), s)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	cases := []struct {
		name, cfgName string
		kindOpt       any
		wantName      string
		wantKind      Kind
	}{
		{"kind named by the option", "local", "llamacpp", "local", KindLlamaCpp},
		{"kind from the adapter name", "ollama", nil, "ollama", KindOllama},
		{"name from the kind", "", "lmstudio", "lmstudio", KindLMStudio},
		{"neither", "my-server", nil, "my-server", KindGeneric},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := adapters.Config{Name: tc.cfgName, BaseURL: "http://127.0.0.1:1"}
			if tc.kindOpt != nil {
				cfg.Options = map[string]any{"kind": tc.kindOpt}
			}
			a := mustNew(t, cfg)
			assert.Equal(t, tc.wantName, a.Name())
			assert.Equal(t, tc.wantKind, a.Kind())
		})
	}
}

// TestCapabilitiesFromRegistry builds the adapters of the embedded
// models.yaml and checks the declarations: the kinds' conservative bases
// and the registry's per-model overrides.
func TestCapabilitiesFromRegistry(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	open := func(name string) *Adapter {
		cfg, err := reg.Config(name, func(string) string { return "sk-test-FAKE" })
		require.NoError(t, err)
		return mustNew(t, cfg)
	}
	ollama := open("ollama")
	qwen := ollama.Capabilities("ollama:qwen3")
	assert.True(t, qwen.SupportsTools, "declared in models.yaml")
	assert.True(t, qwen.SupportsThinking)
	assert.False(t, qwen.SupportsStreamingToolCalls)
	assert.False(t, qwen.SupportsImages)
	assert.Equal(t, 40960, qwen.MaxContextTokens)
	assert.Equal(t, 32768, qwen.MaxOutputTokens)

	llama := ollama.Capabilities("ollama:llama-3.3-70b")
	assert.False(t, llama.SupportsTools, "not declared: a local model is not trusted with tools")
	assert.Equal(t, 131072, llama.MaxContextTokens)
	assert.True(t, llama.SupportsStreaming)
	assert.True(t, llama.SupportsSystemPrompt)

	unknown := open("vllm").Capabilities("vllm:some-model")
	if diff := cmp.Diff(canonical.Capabilities{
		SupportsSystemPrompt: true, SupportsStreaming: true, SupportsSystemMessagesInList: true,
		MaxContextTokens: 4096, MaxOutputTokens: 2048,
	}, unknown); diff != "" {
		t.Errorf("unknown mismatch (-want +got):\n%s", diff)
	}

	router := open("openrouter").Capabilities("openrouter:deepseek/deepseek-v3")
	assert.True(t, router.SupportsTools, "OpenRouter routes tool requests to providers that take them")
	assert.True(t, router.SupportsParallelToolCalls)
	assert.False(t, router.SupportsImages, "declared false in models.yaml")
	assert.Equal(t, 163840, router.MaxContextTokens)
}

// TestCapabilityRefusals: what a model does not declare fails before the
// wire (000 §10.1.5).
func TestCapabilityRefusals(t *testing.T) {
	image := canonical.Message{Role: canonical.RoleUser, Content: canonical.Blocks{
		canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://example.org/a.png"}, MediaType: "image/png"},
		canonical.TextBlock{Text: "what is this?"},
	}}
	cases := []struct {
		name string
		edit func(*canonical.Request)
	}{
		{"tools", func(r *canonical.Request) { r.Tools = []canonical.ToolDefinition{weatherTool} }},
		{"images", func(r *canonical.Request) { r.Messages = []canonical.Message{image} }},
		{"structured output", func(r *canonical.Request) { r.OutputSchema = json.RawMessage(`{"type":"object"}`) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: vllmPersona.body(false, "ok", nil, usage24x8)})
			a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
			req := request(vllmPersona.model, userMsg("hi"))
			tc.edit(req)
			_, err := a.Complete(context.Background(), req)
			ae := adapterError(t, err)
			assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
			assert.Equal(t, canonical.CodeUnsupportedContent, ae.Code)
			assert.Empty(t, srv.requests(""))
		})
	}
	t.Run("declared", func(t *testing.T) {
		srv := newStub(t).on(chatRoute, reply{body: vllmPersona.body(false, "ok", nil, usage24x8)})
		cfg := newConfig(KindVLLM, srv.URL, newEnv())
		cfg.Models[vllmPersona.model] = adapters.ModelConfig{WireName: vllmPersona.wire, Capabilities: json.RawMessage(`{"supports_tools":true,"supports_images":true,"supports_structured_output":true}`)}
		a := mustNew(t, cfg)
		req := request(vllmPersona.model, image)
		req.Tools, req.OutputSchema = []canonical.ToolDefinition{weatherTool}, json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
		_, err := a.Complete(context.Background(), req)
		require.NoError(t, err)
		sent := decodeJSON(t, srv.requests(chatRoute)[0].Body)
		assert.Equal(t, "image_url", dig(t, sent, "messages", 0, "content", 0, "type"))
		assert.Equal(t, false, dig(t, sent, "response_format", "json_schema", "strict"), "local servers get no strict transform")
	})
}

// TestWireOptions checks each knob's effect on the body, header and URL.
func TestWireOptions(t *testing.T) {
	weatherStrict := weatherTool
	weatherStrict.Strict = true
	history := []canonical.Message{
		userMsg("Weather?"),
		assistantMsg("x", canonical.ToolUseBlock{ID: "tu_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}),
		toolMsg("tu_1", "18°C"),
	}
	cases := []struct {
		name   string
		kind   Kind
		suffix string
		opts   map[string]any // model options
		stream bool
		edit   func(*canonical.Request)
		path   string
		check  func(t *testing.T, sent map[string]any, r recorded)
	}{
		{name: "vllm defaults, streamed", kind: KindVLLM, stream: true, path: "/v1/chat/completions", check: func(t *testing.T, sent map[string]any, r recorded) {
			assert.Equal(t, 256.0, sent["max_tokens"])
			assert.NotContains(t, sent, "max_completion_tokens")
			if diff := cmp.Diff(map[string]any{"include_usage": true}, sent["stream_options"]); diff != "" {
				t.Errorf("sent.stream_options mismatch (-want +got):\n%s", diff)
			}
			assert.NotContains(t, dig(t, sent, "tools", 0, "function"), "strict", "local kinds never send strict")
			assert.Equal(t, "tool", dig(t, sent, "messages", 2, "role"))
			assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			assert.Equal(t, "Bearer sk-test-FAKE", r.Header.Get("Authorization"))
		}},
		{name: "generic keeps strict", kind: KindGeneric, suffix: "/v1", path: "/v1/chat/completions", check: func(t *testing.T, sent map[string]any, _ recorded) {
			assert.Equal(t, true, dig(t, sent, "tools", 0, "function", "strict"))
			assert.NotContains(t, sent, "stream_options", "not streamed")
		}},
		{name: "tool_results_as_user", kind: KindLlamaCpp, opts: map[string]any{"tool_results_as_user": true}, check: func(t *testing.T, sent map[string]any, _ recorded) {
			msgs := dig(t, sent, "messages").([]any)
			require.Len(t, msgs, 3)
			assert.Equal(t, "user", dig(t, msgs[2], "role"))
			assert.Equal(t, "Result of tool call tu_1:\n18°C", dig(t, msgs[2], "content"))
			assert.NotContains(t, msgs[2], "tool_call_id")
		}},
		{name: "no_stream_options", kind: KindOllama, stream: true, opts: map[string]any{"no_stream_options": true}, check: func(t *testing.T, sent map[string]any, _ recorded) {
			assert.NotContains(t, sent, "stream_options")
			assert.Equal(t, true, sent["stream"])
		}},
		{name: "max_completion_tokens", kind: KindVLLM, opts: map[string]any{"max_tokens_field": "max_completion_tokens"}, check: func(t *testing.T, sent map[string]any, _ recorded) {
			assert.Equal(t, 256.0, sent["max_completion_tokens"])
			assert.NotContains(t, sent, "max_tokens")
		}},
		{name: "reasoning_effort and parallel_tool_calls", kind: KindVLLM, opts: map[string]any{"reasoning_effort": true, "parallel_tool_calls": false},
			edit: func(r *canonical.Request) { r.Thinking = &canonical.ThinkingConfig{Effort: "high"} },
			check: func(t *testing.T, sent map[string]any, _ recorded) {
				assert.Equal(t, "high", sent["reasoning_effort"])
				assert.Equal(t, false, sent["parallel_tool_calls"])
			}},
		{name: "openrouter path and headers", kind: KindOpenRouter, suffix: "/api", path: "/api/v1/chat/completions", check: func(t *testing.T, _ map[string]any, r recorded) {
			assert.Equal(t, "https://github.com/metis-llm/metis", r.Header.Get("HTTP-Referer"))
			assert.Equal(t, "metis", r.Header.Get("X-Title"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t)
			p := tc.path
			if p == "" {
				p = "/v1/chat/completions"
			}
			srv.on("POST "+p, reply{body: vllmPersona.body(tc.stream, "ok", nil, usage24x8)})
			cfg := newConfig(tc.kind, srv.URL+tc.suffix, newEnv())
			cfg.ExtraHeaders = map[string]string{"HTTP-Referer": "https://github.com/metis-llm/metis", "X-Title": "metis"}
			model := string(tc.kind) + ":m"
			cfg.Models[model] = adapters.ModelConfig{Options: tc.opts, Capabilities: json.RawMessage(`{"supports_tools":true}`)}
			a := mustNew(t, cfg)
			req := request(model, history...)
			req.Tools = []canonical.ToolDefinition{weatherStrict}
			if tc.edit != nil {
				tc.edit(req)
			}
			_, _, err := run(t, a, req, tc.stream)
			require.NoError(t, err)
			reqs := srv.requests("POST " + p)
			require.Len(t, reqs, 1)
			tc.check(t, decodeJSON(t, reqs[0].Body), reqs[0])
		})
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	srv := newStub(t).on(chatRoute, reply{body: ollamaPersona.body(false, "ok", nil, usage24x8)})
	cfg := newConfig(KindOllama, srv.URL, newEnv())
	cfg.APIKey = ""
	a := mustNew(t, cfg)
	_, err := a.Complete(context.Background(), request(ollamaPersona.model, userMsg("hi")))
	require.NoError(t, err)
	assert.Empty(t, srv.requests(chatRoute)[0].Header.Get("Authorization"))
}

// TestSystemPlacement: 000 §10.1.4 — the system prompt and SYSTEM
// messages become one leading system message, joined with blank lines.
func TestSystemPlacement(t *testing.T) {
	cases := []struct {
		name   string
		prompt string
		msgs   []canonical.Message
		want   string // "" means no system message
	}{
		{"none", "", []canonical.Message{userMsg("hi")}, ""},
		{"prompt only", "Be brief.", []canonical.Message{userMsg("hi")}, "Be brief."},
		{"one system message", "", []canonical.Message{systemMsg("You are terse."), userMsg("hi")}, "You are terse."},
		{"prompt and two system messages", "Be brief.", []canonical.Message{systemMsg("You are terse."), systemMsg("Answer in French."), userMsg("hi")}, "Be brief.\n\nYou are terse.\n\nAnswer in French."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: vllmPersona.body(false, "ok", nil, usage24x8)})
			a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
			req := request(vllmPersona.model, tc.msgs...)
			req.SystemPrompt = tc.prompt
			_, err := a.Complete(context.Background(), req)
			require.NoError(t, err)
			msgs := dig(t, decodeJSON(t, srv.requests(chatRoute)[0].Body), "messages").([]any)
			if tc.want == "" {
				require.Len(t, msgs, 1)
				assert.Equal(t, "user", dig(t, msgs[0], "role"))
				return
			}
			require.Len(t, msgs, 2)
			assert.Equal(t, "system", dig(t, msgs[0], "role"))
			assert.Equal(t, tc.want, dig(t, msgs[0], "content"))
		})
	}
}

// TestToolSerializationRoundTrip: 000 §10.1.2 — inputs of every JSON
// shape go out as their JSON text and come back equal.
func TestToolSerializationRoundTrip(t *testing.T) {
	inputs := []string{
		`{}`,
		`{"s":"x","n":-1.5e3,"i":42,"t":true,"f":false,"z":null}`,
		`{"nested":{"deep":{"list":[1,[2,3],{"k":"v"}]}},"unicode":"日本語 \"quoted\""}`,
		`{"big":12345678901234567890,"arr":[]}`,
	}
	anyTool := tool("any", `{"type":"object"}`)
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: vllmPersona.body(false, "", []wireTool{{"call_x", "any", in}}, usage24x8)})
			cfg := newConfig(KindVLLM, srv.URL, newEnv())
			withTools(&cfg, vllmPersona.model)
			a := mustNew(t, cfg)
			req := request(vllmPersona.model, userMsg("go"), assistantMsg("x", canonical.ToolUseBlock{ID: "tu_1", Name: "any", Input: json.RawMessage(in)}), toolMsg("tu_1", "done"))
			req.Tools = []canonical.ToolDefinition{anyTool}
			resp, err := a.Complete(context.Background(), req)
			require.NoError(t, err)
			sent := decodeJSON(t, srv.requests(chatRoute)[0].Body)
			assert.Equal(t, in, dig(t, sent, "messages", 1, "tool_calls", 0, "function", "arguments"), "sent verbatim")
			uses := resp.Content.ToolUses()
			require.Len(t, uses, 1)
			assert.Equal(t, in, string(uses[0].Input), "received verbatim")
		})
	}
}

func TestEstimateInputTokens(t *testing.T) {
	a := mustNew(t, newConfig(KindVLLM, "http://127.0.0.1:1", newEnv()))
	short := a.EstimateInputTokens(request("vllm:m", userMsg("hi")))
	long := a.EstimateInputTokens(request("vllm:m", userMsg(strings.Repeat("abcd", 1000))))
	assert.Positive(t, short)
	assert.Greater(t, long, short+900, "about a token per four bytes")
}
