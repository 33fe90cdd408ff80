package openaicompat

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// chunkHead starts a hand-written stream chunk.
const chunkHead = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[`

func TestReasoningFields(t *testing.T) {
	cases := []struct {
		name     string
		kind     Kind
		opts     map[string]any
		body     string
		thinking string
	}{
		{"vllm reasoning_content", KindVLLM, nil, string(readTestdata(t, "vllm-reasoning.sse")), "The user wants a greeting. Keep it short."},
		{"vllm sending both fields reads one", KindVLLM, nil, sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","reasoning_content":"Think.","reasoning":"Think."},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`,
		), "Think."},
		{"ollama reasoning", KindOllama, nil, sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Greet"},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"role":"assistant","content":"","reasoning":"ing."},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`,
		), "Greeting."},
		{"ollama reads reasoning_content too", KindOllama, nil, sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","reasoning_content":"Other field."},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`,
		), "Other field."},
		{"ollama sending both fields reads one", KindOllama, nil, sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","reasoning":"Think.","reasoning_content":"Think."},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"reasoning":" More.","reasoning_content":" More."},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`,
		), "Think. More."},
		{"option restricts to one field", KindVLLM, map[string]any{"reasoning_fields": []any{"reasoning_content"}}, sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","reasoning":"hidden"},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`,
		), ""},
		{"option switches the field", KindOllama, map[string]any{"reasoning_fields": "reasoning_content"}, sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","reasoning_content":"shown"},"finish_reason":null}]}`,
			chunkHead+`{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`,
		), "shown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: tc.body})
			cfg := newConfig(tc.kind, srv.URL, newEnv())
			cfg.Models[string(tc.kind)+":m"] = adapters.ModelConfig{Options: tc.opts}
			a := mustNew(t, cfg)
			resp, evs, err := run(t, a, request(string(tc.kind)+":m", userMsg("hi")), true)
			require.NoError(t, err)
			assert.Equal(t, "Hi", resp.Content.Text())
			if tc.thinking == "" {
				assert.Len(t, resp.Content, 1)
				return
			}
			require.Len(t, resp.Content, 2)
			if diff := cmp.Diff(canonical.ThinkingBlock{Text: tc.thinking}, resp.Content[0]); diff != "" {
				t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
			}
			assert.NotEmpty(t, adaptertest.EventsOf(evs, canonical.EventThinkingDelta))
		})
	}
}

// TestReasoningWithEmulator runs the shared emulator's Chat Completions
// with a vLLM-style reasoning field, streamed and not.
func TestReasoningWithEmulator(t *testing.T) {
	srv := emulator.NewServer(emulator.WithChatReasoningField("reasoning_content"), emulator.WithoutAuth())
	defer srv.Close()
	cfg := newConfig(KindVLLM, srv.URL, newEnv())
	cfg.APIKey = ""
	a := mustNew(t, cfg)
	for _, stream := range []bool{false, true} {
		srv.Enqueue(emulator.Reply{Thinking: "Two and two make four.", Text: "4", Usage: canonical.TokenUsage{InputTokens: 12, OutputTokens: 9}})
		resp, _, err := run(t, a, request("vllm:emu", userMsg("2+2?")), stream)
		require.NoError(t, err)
		require.Len(t, resp.Content, 2)
		if diff := cmp.Diff(canonical.ThinkingBlock{Text: "Two and two make four."}, resp.Content[0]); diff != "" {
			t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(canonical.TextBlock{Text: "4"}, resp.Content[1]); diff != "" {
			t.Errorf("resp.Content[1] mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 12, OutputTokens: 9}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestUnknownFinishReasonIsError(t *testing.T) {
	env := newEnv()
	body := `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"Half an ans"},"finish_reason":"eos_token_limit"}],"usage":` + usage24x8 + `}`
	stream := sse(
		chunkHead+`{"index":0,"delta":{"role":"assistant","content":"Half an ans"},"finish_reason":null}]}`,
		chunkHead+`{"index":0,"delta":{},"finish_reason":"eos_token_limit"}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],"usage":`+usage24x8+`}`,
	)
	for _, streamed := range []bool{false, true} {
		served := body
		if streamed {
			served = stream
		}
		srv := newStub(t).on(chatRoute, reply{body: served})
		a := mustNew(t, newConfig(KindLMStudio, srv.URL, env))
		resp, _, err := run(t, a, request("lmstudio:m", userMsg("hi")), streamed)
		require.NoError(t, err, "an unknown finish_reason is returned, not raised (004 §8.2)")
		assert.Equal(t, canonical.StopError, resp.StopReason)
		assert.Equal(t, "eos_token_limit", resp.ProviderStopReason)
		assert.Equal(t, "Half an ans", resp.Content.Text())
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 24, OutputTokens: 8}, resp.Usage); diff != "" {
			t.Errorf("streamed=%v: the usage after the finish reason is kept, not estimated (-want +got):\n%s", streamed, diff)
		}
	}
	assert.Empty(t, env.log.warnings("usage estimated"))
	warns := env.log.warnings("unknown finish_reason")
	require.Len(t, warns, 2)
	for _, w := range warns {
		assert.Equal(t, "eos_token_limit", w["finish_reason"])
		assert.Equal(t, "lmstudio", w["adapter"])
		assert.NotEmpty(t, w["request_id"])
	}
}

func TestAbortFinishReason(t *testing.T) {
	srv := newStub(t).on(chatRoute, reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"Par"},"finish_reason":"abort"}]}`})
	a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
	resp, err := a.Complete(context.Background(), request("vllm:m", userMsg("hi")))
	require.NoError(t, err)
	assert.Equal(t, canonical.StopError, resp.StopReason)
	assert.Equal(t, "abort", resp.ProviderStopReason)
}

// TestWholeResponsesValidated: 004 §3 — a response that claims to be
// whole must have content; its tool calls are checked on arrival by the
// driver and, when bad, returned marked rather than raised (001 §5.2.4).
func TestWholeResponsesValidated(t *testing.T) {
	cases := []struct {
		name     string
		calls    []wireTool
		content  string
		code     string // the error's; "" when the response is returned marked
		contains string // in the error's message, or the tool call's InputError
	}{
		{"tool not requested", []wireTool{{"call_1", "delete_everything", `{}`}}, "", "", `no tool named "delete_everything"`},
		{"arguments against the schema", []wireTool{{"call_1", "get_weather", `{"town":"Paris"}`}}, "", "", "input#"},
		{"arguments not an object", []wireTool{{"call_1", "get_weather", `["Paris"]`}}, "", "", "not a JSON object"},
		{"empty message", nil, "", canonical.CodeInvalidResponse, "no content"},
	}
	for _, tc := range cases {
		for _, p := range personas {
			for _, stream := range []bool{false, true} {
				t.Run(tc.name+"/"+p.String(), func(t *testing.T) {
					srv := newStub(t).on(chatRoute, reply{body: p.body(stream, tc.content, tc.calls, usage24x8)})
					cfg := newConfig(p.kind, srv.URL, newEnv())
					withTools(&cfg, p.model)
					a := mustNew(t, cfg)
					req := request(p.model, userMsg("weather?"))
					req.Tools = []canonical.ToolDefinition{weatherTool}
					resp, _, err := run(t, a, req, stream)
					if tc.code == "" {
						require.NoError(t, err)
						uses := resp.Content.ToolUses()
						require.Len(t, uses, 1)
						assert.Contains(t, uses[0].InputError, tc.contains)
						return
					}
					ae := adapterError(t, err)
					assert.Equal(t, canonical.ErrServer, ae.Class)
					assert.Equal(t, tc.code, ae.Code)
					assert.Contains(t, ae.Message, tc.contains)
					assert.Equal(t, req.RequestID, ae.RequestID)
					if stream {
						assert.Equal(t, canonical.StopError, resp.StopReason)
					}
				})
			}
		}
	}
}

// TestDegradedResponsesReturned: a response cut by max_tokens keeps its
// half-written tool call instead of failing.
func TestDegradedResponsesReturned(t *testing.T) {
	body := `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]},"finish_reason":"length"}],"usage":` + usage24x8 + `}`
	srv := newStub(t).on(chatRoute, reply{body: body})
	cfg := newConfig(KindVLLM, srv.URL, newEnv())
	withTools(&cfg, "vllm:m")
	a := mustNew(t, cfg)
	req := request("vllm:m", userMsg("weather?"))
	req.Tools = []canonical.ToolDefinition{weatherTool}
	resp, err := a.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, canonical.StopMaxTokens, resp.StopReason)
	uses := resp.Content.ToolUses()
	require.Len(t, uses, 1)
	assert.JSONEq(t, `{}`, string(uses[0].Input))
	assert.JSONEq(t, `{"tool_calls":{"`+uses[0].ID+`":{"raw_arguments":"{\"ci"}}}`, string(resp.ProviderRaw))
}

// TestPartialJSONFidelity: 000 §10.1.7 — input deltas are the server's
// fragments verbatim.
func TestPartialJSONFidelity(t *testing.T) {
	srv := newStub(t).on(chatRoute, reply{body: string(readTestdata(t, "vllm-tool-fragments.sse"))})
	cfg := newConfig(KindVLLM, srv.URL, newEnv())
	withTools(&cfg, "vllm:m")
	a := mustNew(t, cfg)
	req := request("vllm:m", userMsg("weather?"))
	req.Tools, req.ToolIDs = []canonical.ToolDefinition{weatherTool}, adapters.NewToolIDMap()
	resp, evs, err := run(t, a, req, true)
	require.NoError(t, err)
	var got []string
	for _, ev := range adaptertest.EventsOf(evs, canonical.EventToolUseInput) {
		got = append(got, ev.PartialJSON)
	}
	if diff := cmp.Diff([]string{`{"ci`, `ty": "Pa`, `ris"`, `}`}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	ends := adaptertest.EventsOf(evs, canonical.EventToolUseEnd)
	require.Len(t, ends, 1)
	assert.JSONEq(t, `{"city":"Paris"}`, string(ends[0].FinalInput))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason, "finish_reason stop with a tool call is tool_use")
	uses := resp.Content.ToolUses()
	require.Len(t, uses, 1)
	assert.Equal(t, "call_vllm_7", req.ToolIDs.Wire("vllm", uses[0].ID), "the server's id is in the session map")
}

// TestCostTokenMapping: 000 §10.1.13 — every token field lands in
// TokenUsage (cached tokens out of the input count).
func TestCostTokenMapping(t *testing.T) {
	usage := `{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"prompt_tokens_details":{"cached_tokens":100},"completion_tokens_details":{"reasoning_tokens":25}}`
	want := canonical.TokenUsage{InputTokens: 20, CachedInputTokens: 100, OutputTokens: 40, ReasoningTokens: 25}
	for _, stream := range []bool{false, true} {
		srv := newStub(t).on(chatRoute, reply{body: vllmPersona.body(stream, "ok", nil, usage)})
		a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
		resp, _, err := run(t, a, request(vllmPersona.model, userMsg("hi")), stream)
		require.NoError(t, err)
		if diff := cmp.Diff(want, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	}
}

// TestStreamingUsageEqualsComplete: 000 §10.1.14, reported and estimated.
func TestStreamingUsageEqualsComplete(t *testing.T) {
	for _, p := range personas {
		for _, usage := range []string{usage24x8, ""} {
			var got [2]canonical.Response
			for i, stream := range []bool{false, true} {
				srv := newStub(t).on(chatRoute, reply{body: p.body(stream, "The same answer twice.", []wireTool{{"call_1", "get_weather", `{"city":"Oslo"}`}}, usage)})
				cfg := newConfig(p.kind, srv.URL, newEnv())
				withTools(&cfg, p.model)
				a := mustNew(t, cfg)
				req := request(p.model, userMsg("weather in Oslo?"))
				req.Tools = []canonical.ToolDefinition{weatherTool}
				resp, _, err := run(t, a, req, stream)
				require.NoError(t, err)
				got[i] = *resp
			}
			if diff := cmp.Diff(got[0].Usage, got[1].Usage); diff != "" {
				t.Errorf("%s usage %q (-want +got):\n%s", p, usage, diff)
			}
			assert.Equal(t, usage == "", got[1].Usage.Estimated)
			assert.Equal(t, got[0].StopReason, got[1].StopReason)
			assert.Equal(t, got[0].Content.Text(), got[1].Content.Text())
		}
	}
}

func TestStreamErrors(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		class canonical.ErrorClass
		code  string
	}{
		{"error chunk", sse(
			chunkHead+`{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`,
			`{"error":{"message":"Internal error while generating","type":"InternalServerError","code":500}}`,
		), canonical.ErrServer, ""},
		{"truncated", "data: " + chunkHead + `{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n", canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"malformed chunk", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\n\n", canonical.ErrServer, canonical.CodeInvalidResponse},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: tc.body})
			a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
			resp, _, err := run(t, a, request("vllm:m", userMsg("hi")), true)
			ae := adapterError(t, err)
			assert.Equal(t, tc.class, ae.Class, ae.Error())
			assert.Equal(t, tc.code, ae.Code)
			require.NotNil(t, resp, "message.complete precedes the error (000 §6.5)")
			assert.Equal(t, canonical.StopError, resp.StopReason)
		})
	}
}

func TestStreamConsumerStopsEarly(t *testing.T) {
	srv := newStub(t).on(chatRoute, reply{body: vllmPersona.body(true, "a fairly long answer in pieces", nil, usage24x8)})
	a := mustNew(t, newConfig(KindVLLM, srv.URL, newEnv()))
	n := 0
	for range a.Stream(context.Background(), request(vllmPersona.model, userMsg("hi"))) {
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n)
}

// TestInterleavedParallelToolArguments: a compatible server whose
// parallel calls' argument fragments interleave gets each fragment routed
// to its own call, on every server kind, through the whole adapter.
func TestInterleavedParallelToolArguments(t *testing.T) {
	body := sse(
		chunkHead+`{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": "}}]},"finish_reason":null}]}`,
		chunkHead+`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\": "}}]},"finish_reason":null}]}`,
		chunkHead+`{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"Rome\"}"}}]},"finish_reason":null}]}`,
		chunkHead+`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]},"finish_reason":null}]}`,
		chunkHead+`{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],"usage":`+usage24x8+`}`,
	) + "data: [DONE]\n\n"
	for _, kind := range []Kind{KindVLLM, KindOllama, KindLMStudio, KindLlamaCpp, KindOpenRouter} {
		t.Run(string(kind), func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: body})
			cfg := newConfig(kind, srv.URL, newEnv())
			cfg.Models[string(kind)+":m"] = adapters.ModelConfig{Capabilities: json.RawMessage(`{"supports_tools":true,"supports_parallel_tools":true}`)}
			a := mustNew(t, cfg)
			req := request(string(kind)+":m", userMsg("Weather in Oslo and Rome?"))
			req.Tools = []canonical.ToolDefinition{weatherTool}
			resp, evs, err := run(t, a, req, true)
			require.NoError(t, err)
			uses := resp.Content.ToolUses()
			require.Len(t, uses, 2)
			assert.JSONEq(t, `{"city":"Oslo"}`, string(uses[0].Input))
			assert.JSONEq(t, `{"city":"Rome"}`, string(uses[1].Input))
			var first []string
			for _, ev := range adaptertest.EventsOf(evs, canonical.EventToolUseInput) {
				if ev.ToolUseID == uses[0].ID {
					first = append(first, ev.PartialJSON)
				}
			}
			if diff := cmp.Diff([]string{`{"city": `, `"Oslo"}`}, first); diff != "" {
				t.Errorf("first mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
