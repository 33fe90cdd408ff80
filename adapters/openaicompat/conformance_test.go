package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// The tests in this file reproduce the conformance fixtures of seed 004
// (001–008) against loopback servers playing vLLM and Ollama.

const usage24x8 = `{"prompt_tokens":24,"completion_tokens":8,"total_tokens":32}`

// run makes the call in either mode and returns the response (from
// message.complete when streamed), the events, and the error.
func run(t *testing.T, a *Adapter, req *canonical.Request, stream bool) (*canonical.Response, []canonical.StreamEvent, error) {
	t.Helper()
	if !stream {
		resp, err := a.Complete(context.Background(), req)
		return resp, nil, err
	}
	evs, err := adaptertest.Collect(a.Stream(context.Background(), req))
	if f := streamcheck.Check(evs); len(f) > 0 {
		t.Fatalf("stream invariant broken: %v", f)
	}
	if len(evs) == 0 {
		return nil, nil, err
	}
	return completed(t, evs), evs, err
}

// forEachPersona runs f for every persona in both modes.
func forEachPersona(t *testing.T, f func(t *testing.T, p persona, stream bool)) {
	for _, p := range personas {
		for _, stream := range []bool{false, true} {
			name := p.String() + "/complete"
			if stream {
				name = p.String() + "/stream"
			}
			t.Run(name, func(t *testing.T) { f(t, p, stream) })
		}
	}
}

func TestConformance001BasicCompletion(t *testing.T) {
	forEachPersona(t, func(t *testing.T, p persona, stream bool) {
		srv := newStub(t).on(chatRoute, reply{body: p.body(stream, "Paris is the capital of France.", nil, usage24x8)})
		a := mustNew(t, newConfig(p.kind, srv.URL, newEnv()))
		req := request(p.model, systemMsg("You answer in one sentence."), userMsg("What is the capital of France?"))

		resp, _, err := run(t, a, req, stream)
		require.NoError(t, err)
		require.Len(t, resp.Content, 1)
		if diff := cmp.Diff(canonical.TextBlock{Text: "Paris is the capital of France."}, resp.Content[0]); diff != "" {
			t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
		assert.Equal(t, "stop", resp.ProviderStopReason)
		assert.Empty(t, resp.Content.ToolUses())
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 24, OutputTokens: 8}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, string(p.kind), resp.Provider)

		sent := decodeJSON(t, srv.requests(chatRoute)[0].Body)
		assert.Equal(t, p.wire, sent["model"])
		assert.Equal(t, "system", dig(t, sent, "messages", 0, "role"))
		assert.Equal(t, "You answer in one sentence.", dig(t, sent, "messages", 0, "content"))
		assert.Equal(t, "user", dig(t, sent, "messages", 1, "role"))
		assert.Equal(t, stream, sent["stream"] == true)
	})
}

func TestConformance002ToolCallRoundtrip(t *testing.T) {
	const providerID = "call_abc123_with_underscores"
	forEachPersona(t, func(t *testing.T, p persona, stream bool) {
		srv := newStub(t).on(chatRoute,
			reply{body: p.body(stream, "", []wireTool{{providerID, "get_weather", `{"city":"Paris"}`}}, usage24x8)},
			reply{body: p.body(false, "It is 18°C in Paris.", nil, usage24x8)},
		)
		cfg := newConfig(p.kind, srv.URL, newEnv())
		withTools(&cfg, p.model)
		a := mustNew(t, cfg)
		ids := adapters.NewToolIDMap() // the session's map
		user := userMsg("What is the weather in Paris?")

		req := request(p.model, user)
		req.Tools, req.ToolIDs = []canonical.ToolDefinition{weatherTool}, ids
		resp, _, err := run(t, a, req, stream)
		require.NoError(t, err)
		assert.Equal(t, canonical.StopToolUse, resp.StopReason)
		uses := resp.Content.ToolUses()
		require.Len(t, uses, 1)
		assert.True(t, canonical.IsToolUseID(uses[0].ID), "canonical id %q", uses[0].ID)
		assert.Equal(t, "get_weather", uses[0].Name)
		assert.JSONEq(t, `{"city":"Paris"}`, string(uses[0].Input))

		// The caller appends the assistant turn and the tool result.
		next := request(p.model, user, assistantMsg(a.Name(), resp.Content...), toolMsg(uses[0].ID, "18°C, clear"))
		next.Tools, next.ToolIDs = req.Tools, ids
		final, err := a.Complete(context.Background(), next)
		require.NoError(t, err)
		assert.Equal(t, canonical.StopEndTurn, final.StopReason)
		assert.Equal(t, "It is 18°C in Paris.", final.Content.Text())

		sent := decodeJSON(t, srv.requests(chatRoute)[1].Body)
		assert.Equal(t, providerID, dig(t, sent, "messages", 1, "tool_calls", 0, "id"), "the server's id goes back verbatim")
		assert.Equal(t, `{"city":"Paris"}`, dig(t, sent, "messages", 1, "tool_calls", 0, "function", "arguments"))
		assert.Equal(t, "tool", dig(t, sent, "messages", 2, "role"))
		assert.Equal(t, providerID, dig(t, sent, "messages", 2, "tool_call_id"))
		assert.Equal(t, "18°C, clear", dig(t, sent, "messages", 2, "content"))
	})
}

func TestConformance003MessageValidation(t *testing.T) {
	use := canonical.ToolUseBlock{ID: "tu_01", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}
	cases := []struct {
		name  string
		msgs  []canonical.Message
		tools []canonical.ToolDefinition
	}{
		{"system message in the middle", []canonical.Message{userMsg("hi"), assistantMsg("vllm", canonical.TextBlock{Text: "hello"}), systemMsg("be brief"), userMsg("and?")}, nil},
		{"tool result without a preceding tool call", []canonical.Message{userMsg("hi"), toolMsg("tu_unknown", "42")}, nil},
		{"duplicate tool names", []canonical.Message{userMsg("hi")}, []canonical.ToolDefinition{weatherTool, weatherTool}},
		{"user message without content", []canonical.Message{{Role: canonical.RoleUser}}, nil},
		{"assistant message last", []canonical.Message{userMsg("hi"), assistantMsg("vllm", canonical.TextBlock{Text: "hello"})}, nil},
		{"conversation starting with the assistant", []canonical.Message{assistantMsg("vllm", use), toolMsg("tu_01", "18°C")}, nil},
		{"empty history", nil, nil},
	}
	for _, p := range personas {
		for _, tc := range cases {
			for _, stream := range []bool{false, true} {
				t.Run(p.String()+"/"+tc.name, func(t *testing.T) {
					srv := newStub(t).on(chatRoute, reply{body: p.body(stream, "unreachable", nil, usage24x8)})
					cfg := newConfig(p.kind, srv.URL, newEnv())
					withTools(&cfg, p.model)
					a := mustNew(t, cfg)
					req := request(p.model, tc.msgs...)
					req.Tools = tc.tools
					var err error
					if stream {
						_, err = adaptertest.Collect(a.Stream(context.Background(), req))
					} else {
						_, err = a.Complete(context.Background(), req)
					}
					ae := adapterError(t, err)
					assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
					assert.Equal(t, req.RequestID, ae.RequestID)
					assert.Empty(t, srv.requests(""), "no HTTP call may be made")
				})
			}
		}
	}
}

func TestConformance004ErrorCategories(t *testing.T) {
	type want struct {
		class     canonical.ErrorClass
		code      string
		retryable bool
	}
	for _, p := range personas {
		cases := []struct {
			name   string
			status int
			body   string
			want   want
		}{
			{"401", 401, `{"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}}`, want{canonical.ErrAuth, "", false}},
			{"403", 403, `{"error":"forbidden"}`, want{canonical.ErrAuth, "", false}},
			{"404 model not found", 404, p.notFound, want{canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false}},
			{"503 llama.cpp loading", 503, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, want{canonical.ErrServer, canonical.CodeModelNotLoaded, true}},
			{"503 model is loading", 503, `{"error":"Model is loading, please retry"}`, want{canonical.ErrServer, canonical.CodeModelNotLoaded, true}},
			{"vLLM-style model_not_loaded payload", 503, `{"object":"error","message":"model is not ready","type":"ServiceUnavailableError","code":"model_not_loaded"}`, want{canonical.ErrServer, canonical.CodeModelNotLoaded, true}},
			{"429", 429, `{"error":{"message":"Too many requests","type":"rate_limit_error"}}`, want{canonical.ErrRateLimit, "", true}},
			{"500", 500, `{"object":"error","message":"Internal server error","type":"InternalServerError","code":500}`, want{canonical.ErrServer, "", true}},
			{"502 without a body", 502, ``, want{canonical.ErrServer, "", true}},
			{"503 without a loading body", 503, `{"error":"overloaded"}`, want{canonical.ErrServer, "", true}},
			{"malformed but 200", 200, `{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"Par`, want{canonical.ErrServer, canonical.CodeInvalidResponse, false}},
			{"200 without choices", 200, `{"id":"chatcmpl-1","object":"chat.completion"}`, want{canonical.ErrServer, canonical.CodeInvalidResponse, false}},
		}
		for _, tc := range cases {
			t.Run(p.String()+"/"+tc.name, func(t *testing.T) {
				srv := newStub(t).on(chatRoute, reply{status: tc.status, body: tc.body})
				a := mustNew(t, newConfig(p.kind, srv.URL, newEnv())) // MaxRetries 0
				_, err := a.Complete(context.Background(), request(p.model, userMsg("hi")))
				ae := adapterError(t, err)
				assert.Equal(t, tc.want.class, ae.Class, ae.Error())
				assert.Equal(t, tc.want.code, ae.Code, ae.Error())
				assert.Equal(t, tc.want.retryable, ae.Retryable)
				assert.Equal(t, string(p.kind), ae.Provider)
				if tc.status != 200 {
					assert.Equal(t, tc.status, ae.Status)
				}
			})
		}
	}
}

func TestConformance005OpenAIWireMapping(t *testing.T) {
	served := readTestdata(t, "wire-mapping-logprobs.json")
	for _, p := range personas {
		t.Run(p.String(), func(t *testing.T) {
			srv := newStub(t).on(chatRoute, reply{body: string(served)})
			cfg := newConfig(p.kind, srv.URL, newEnv())
			withTools(&cfg, p.model)
			a := mustNew(t, cfg)
			ids := adapters.NewToolIDMap()
			ids.Bind("tu_01", string(p.kind), "call_7")
			temp, topP, seed := 0.2, 0.9, int64(7)
			req := request(p.model,
				systemMsg("Be terse."),
				userMsg("Weather in Paris?"),
				assistantMsg(string(p.kind), canonical.TextBlock{Text: "Checking."}, canonical.ToolUseBlock{ID: "tu_01", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris","days":[1,2],"metric":true}`)}),
				toolMsg("tu_01", "18°C"),
				userMsg("Thanks. Tomorrow?"),
			)
			req.Tools, req.ToolIDs = []canonical.ToolDefinition{weatherTool}, ids
			req.Temperature, req.TopP, req.Seed, req.MaxOutputTokens = &temp, &topP, &seed, 300

			resp, err := a.Complete(context.Background(), req)
			require.NoError(t, err)

			// Request: the §8.1 mapping.
			sent := decodeJSON(t, srv.requests(chatRoute)[0].Body)
			assert.Equal(t, p.wire, sent["model"])
			assert.Equal(t, 0.2, sent["temperature"])
			assert.Equal(t, 0.9, sent["top_p"])
			assert.Equal(t, 7.0, sent["seed"])
			assert.Equal(t, 300.0, sent["max_tokens"], "compatible servers get max_tokens")
			assert.NotContains(t, sent, "max_completion_tokens")
			roles := []any{}
			for _, m := range dig(t, sent, "messages").([]any) {
				roles = append(roles, m.(map[string]any)["role"])
			}
			if diff := cmp.Diff([]any{"system", "user", "assistant", "tool", "user"}, roles); diff != "" {
				t.Errorf("roles mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, "Checking.", dig(t, sent, "messages", 2, "content"))
			assert.Equal(t, "call_7", dig(t, sent, "messages", 2, "tool_calls", 0, "id"))
			assert.Equal(t, "function", dig(t, sent, "messages", 2, "tool_calls", 0, "type"))
			assert.Equal(t, `{"city":"Paris","days":[1,2],"metric":true}`, dig(t, sent, "messages", 2, "tool_calls", 0, "function", "arguments"), "arguments are the JSON-serialized input")
			assert.Equal(t, "call_7", dig(t, sent, "messages", 3, "tool_call_id"))
			assert.Equal(t, "function", dig(t, sent, "tools", 0, "type"))
			assert.Equal(t, "get_weather", dig(t, sent, "tools", 0, "function", "name"))
			assert.Equal(t, "test tool get_weather", dig(t, sent, "tools", 0, "function", "description"))
			assert.Equal(t, "object", dig(t, sent, "tools", 0, "function", "parameters", "type"))

			// Response: normalized fields, and the body verbatim.
			assert.Equal(t, "Tomorrow: 21°C.", resp.Content.Text())
			assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 61, OutputTokens: 6}, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}
			assert.True(t, bytes.Equal(served, resp.RawBody), "RawBody must be the server's bytes")
			assert.Contains(t, string(resp.RawBody), `"logprobs": {"content":[{"token":"Tom"`)
			assert.Contains(t, string(resp.RawBody), `"prompt_logprobs": null`)
		})
	}
}

func TestConformance006UsageAccounting(t *testing.T) {
	const text = "Paris is the capital of France."
	forEachPersona(t, func(t *testing.T, p persona, stream bool) {
		for _, withUsage := range []bool{true, false} {
			usage := ""
			if withUsage {
				usage = usage24x8
			}
			srv := newStub(t).on(chatRoute, reply{body: p.body(stream, text, nil, usage)})
			env := newEnv()
			a := mustNew(t, newConfig(p.kind, srv.URL, env))
			req := request(p.model, userMsg("What is the capital of France?"))
			resp, _, err := run(t, a, req, stream)
			require.NoError(t, err)
			if withUsage {
				if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 24, OutputTokens: 8}, resp.Usage); diff != "" {
					t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
				}
				assert.Empty(t, env.log.warnings("usage estimated"))
				continue
			}
			want := canonical.TokenUsage{
				InputTokens:  a.EstimateInputTokens(req),
				OutputTokens: (len(text) + 3) / 4, // 31 bytes → 8 tokens
				Estimated:    true,
			}
			assert.Equal(t, 8, want.OutputTokens)
			assert.Positive(t, want.InputTokens)
			if diff := cmp.Diff(want, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}
			warns := env.log.warnings("usage estimated")
			require.Len(t, warns, 1)
			assert.Equal(t, req.RequestID, warns[0]["request_id"])
		}
	})
}

func TestConformance007ReadyCheck(t *testing.T) {
	// Each persona's probes; ready_test.go covers every kind and outcome.
	models := `{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","owned_by":"vllm","max_model_len":32768},{"id":"qwen3:latest","object":"model","owned_by":"library"}]}`
	cases := []struct {
		name   string
		p      persona
		routes map[string]reply
		want   *canonical.AdapterError // nil: ready
	}{
		{"vLLM listed and loaded", vllmPersona, map[string]reply{"GET /v1/models": {body: models}, "GET /health": {}, "GET /is_sleeping": {status: 404}}, nil},
		{"vLLM listed but sleeping", vllmPersona, map[string]reply{"GET /v1/models": {body: models}, "GET /health": {}, "GET /is_sleeping": {body: `{"is_sleeping":true}`}}, &canonical.AdapterError{Class: canonical.ErrServer, Code: canonical.CodeModelNotLoaded, Retryable: true}},
		{"vLLM 401", vllmPersona, map[string]reply{"GET /v1/models": {status: 401, body: `{"error":"Unauthorized"}`}}, &canonical.AdapterError{Class: canonical.ErrAuth, Status: 401}},
		{"vLLM 404 with no matching model", vllmPersona, map[string]reply{"GET /v1/models": {status: 404, body: vllmPersona.notFound}}, &canonical.AdapterError{Class: canonical.ErrInvalidRequest, Code: canonical.CodeModelNotFound, Status: 404}},
		{"vLLM model not listed", vllmPersona, map[string]reply{"GET /v1/models": {body: `{"object":"list","data":[{"id":"other"}]}`}}, &canonical.AdapterError{Class: canonical.ErrInvalidRequest, Code: canonical.CodeModelNotFound}},
		{"Ollama listed and loaded", ollamaPersona, map[string]reply{"GET /api/ps": {body: `{"models":[{"name":"qwen3:latest","model":"qwen3:latest"}]}`}}, nil},
		{"Ollama listed but not loaded", ollamaPersona, map[string]reply{"GET /api/ps": {body: `{"models":[]}`}, "GET /v1/models": {body: models}}, &canonical.AdapterError{Class: canonical.ErrServer, Code: canonical.CodeModelNotLoaded, Retryable: true}},
		{"Ollama 401", ollamaPersona, map[string]reply{"GET /api/ps": {status: 401, body: `{"error":"unauthorized"}`}}, &canonical.AdapterError{Class: canonical.ErrAuth, Status: 401}},
		{"Ollama unknown model", ollamaPersona, map[string]reply{"GET /api/ps": {body: `{"models":[]}`}, "GET /v1/models": {body: `{"object":"list","data":[{"id":"llama3.2:latest"}]}`}}, &canonical.AdapterError{Class: canonical.ErrInvalidRequest, Code: canonical.CodeModelNotFound}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t)
			for route, r := range tc.routes {
				srv.on(route, r)
			}
			a := mustNew(t, newConfig(tc.p.kind, srv.URL, newEnv()))
			err := a.Ready(context.Background(), tc.p.model)
			assertReadyOutcome(t, tc.want, err)
			assert.Empty(t, srv.requests(chatRoute), "ready never runs a completion")
		})
	}
	for _, p := range personas {
		t.Run(p.String()+" network failure", func(t *testing.T) {
			srv := newStub(t)
			srv.Close() // connection refused
			a := mustNew(t, newConfig(p.kind, srv.URL, newEnv()))
			assertReadyOutcome(t, &canonical.AdapterError{Class: canonical.ErrNetwork, Retryable: true}, a.Ready(context.Background(), p.model))
		})
	}
}

// assertReadyOutcome checks Ready's result against want (nil: ready).
func assertReadyOutcome(t *testing.T, want *canonical.AdapterError, err error) {
	t.Helper()
	if want == nil {
		require.NoError(t, err)
		return
	}
	ae := adapterError(t, err)
	assert.Equal(t, want.Class, ae.Class, ae.Error())
	assert.Equal(t, want.Code, ae.Code, ae.Error())
	assert.Equal(t, want.Retryable, ae.Retryable, ae.Error())
	if want.Status != 0 {
		assert.Equal(t, want.Status, ae.Status)
	}
	assert.Contains(t, ae.Message, "ready")
}

func TestConformance008ErrorFinishReasonWithMalformedToolCalls(t *testing.T) {
	body := readTestdata(t, "finish-error-malformed-tool-calls.json")
	const truncated = `{"city": "Lon`
	require.Contains(t, string(body), `{\"city\": \"Lon"`, "the testdata carries the truncated arguments")
	stream := readTestdata(t, "finish-error-malformed-tool-calls.sse")
	for _, p := range personas {
		for _, streamed := range []bool{false, true} {
			name := p.String() + "/complete"
			served := body
			if streamed {
				name, served = p.String()+"/stream", stream
			}
			t.Run(name, func(t *testing.T) {
				srv := newStub(t).on(chatRoute, reply{body: string(served)})
				cfg := newConfig(p.kind, srv.URL, newEnv())
				withTools(&cfg, p.model)
				a := mustNew(t, cfg)
				req := request(p.model, userMsg("Weather in Paris, Rome and London?"))
				req.Tools = []canonical.ToolDefinition{weatherTool}

				resp, _, err := run(t, a, req, streamed)
				require.NoError(t, err, "finish_reason error is returned, not raised")
				assert.Equal(t, canonical.StopError, resp.StopReason)
				assert.Equal(t, "error", resp.ProviderStopReason)
				uses := resp.Content.ToolUses()
				require.Len(t, uses, 3)
				assert.JSONEq(t, `{"city":"Paris"}`, string(uses[0].Input), "valid call: parsed")
				assert.JSONEq(t, `{"city":42}`, string(uses[1].Input), "schema-violating call: parsed, not enforced")
				assert.JSONEq(t, `{}`, string(uses[2].Input), "truncated call: no input")
				for _, u := range uses {
					assert.Equal(t, "get_weather", u.Name)
				}

				var raw openai.ChatProviderRaw
				require.NoError(t, json.Unmarshal(resp.ProviderRaw, &raw), string(resp.ProviderRaw))
				require.Len(t, raw.ToolCalls, 1, "only the unparseable call is kept raw")
				require.NotNil(t, raw.ToolCalls[uses[2].ID])
				require.NotNil(t, raw.ToolCalls[uses[2].ID].RawArguments)
				assert.Equal(t, truncated, *raw.ToolCalls[uses[2].ID].RawArguments)
				if !streamed {
					assert.True(t, bytes.Equal(body, resp.RawBody), "RawBody carries the truncated bytes verbatim")
				}
			})
		}
	}
}

// TestMalformedToolCallsMarkedWhenWhole is fixture 008's counterpart: the
// same tool calls in a response that claims to be whole are returned, not
// raised (nothing lost), each bad one marked with the reason the driver's
// arrival check found (001 §5.2.4), so that the session can answer it with
// an is_error result the model can correct.
func TestMalformedToolCallsMarkedWhenWhole(t *testing.T) {
	body := bytes.Replace(readTestdata(t, "finish-error-malformed-tool-calls.json"), []byte(`"finish_reason":"error"`), []byte(`"finish_reason":"tool_calls"`), 1)
	stream := bytes.Replace(readTestdata(t, "finish-error-malformed-tool-calls.sse"), []byte(`"finish_reason":"error"`), []byte(`"finish_reason":"tool_calls"`), 1)
	for _, streamed := range []bool{false, true} {
		served := body
		if streamed {
			served = stream
		}
		srv := newStub(t).on(chatRoute, reply{body: string(served)})
		cfg := newConfig(KindVLLM, srv.URL, newEnv())
		withTools(&cfg, vllmPersona.model)
		a := mustNew(t, cfg)
		req := request(vllmPersona.model, userMsg("Weather?"))
		req.Tools = []canonical.ToolDefinition{weatherTool}
		resp, evs, err := run(t, a, req, streamed)
		require.NoError(t, err)
		assert.Equal(t, canonical.StopToolUse, resp.StopReason)
		uses := resp.Content.ToolUses()
		require.Len(t, uses, 3)
		assert.Empty(t, uses[0].InputError, "the valid call is not marked")
		assert.Equal(t, "input#/city: got number, want string", uses[1].InputError)
		assert.Equal(t, `the arguments are not a JSON object: "{\"city\": \"Lon"`, uses[2].InputError)
		var raw openai.ChatProviderRaw
		require.NoError(t, json.Unmarshal(resp.ProviderRaw, &raw), string(resp.ProviderRaw))
		require.NotNil(t, raw.ToolCalls[uses[2].ID].RawArguments, "the unparsed arguments are kept verbatim")
		if streamed {
			ends := adaptertest.EventsOf(evs, canonical.EventToolUseEnd)
			require.Len(t, ends, 3)
			assert.Equal(t, uses[1].InputError, ends[1].InputError, "tool.use_end carries the mark")
		}
	}
}
