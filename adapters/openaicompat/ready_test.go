package openaicompat

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// Expected Ready outcomes.
var (
	ready     *canonical.AdapterError
	notLoaded = &canonical.AdapterError{Class: canonical.ErrServer, Code: canonical.CodeModelNotLoaded, Retryable: true}
	notFound  = &canonical.AdapterError{Class: canonical.ErrInvalidRequest, Code: canonical.CodeModelNotFound}
	authFail  = &canonical.AdapterError{Class: canonical.ErrAuth}
	serverErr = &canonical.AdapterError{Class: canonical.ErrServer, Retryable: true}
	malformed = &canonical.AdapterError{Class: canonical.ErrServer, Code: canonical.CodeInvalidResponse}
)

func TestReady(t *testing.T) {
	const (
		listVLLM   = `{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","owned_by":"vllm","root":"Qwen/Qwen2.5-7B-Instruct","max_model_len":32768}]}`
		listOther  = `{"object":"list","data":[{"id":"mistral-7b"},{"id":"phi-4"}]}`
		loadingLC  = `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`
		unauth     = `{"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}}`
		lmsLoaded  = `{"models":[{"type":"llm","publisher":"qwen","key":"qwen3-8b","display_name":"Qwen3 8B","loaded_instances":[{"id":"qwen3-8b","config":{"context_length":8192}}],"max_context_length":32768}]}`
		lmsOnDisk  = `{"models":[{"type":"llm","publisher":"qwen","key":"qwen3-8b","display_name":"Qwen3 8B","loaded_instances":[],"max_context_length":32768}]}`
		lmsV0      = `{"object":"list","data":[{"id":"qwen3-8b","object":"model","type":"llm","state":"%s","max_context_length":32768}]}`
		routerList = `{"object":"list","data":[{"id":"qwen3-8b","object":"model","owned_by":"llamacpp","created":1767225600,"status":{"value":"%s","args":["llama-server"]}}]}`
		singleLC   = `{"models":[{"name":"qwen3-8b","model":"qwen3-8b","type":"model"}],"object":"list","data":[{"id":"qwen3-8b","object":"model","created":1767225600,"owned_by":"llamacpp","meta":{"n_ctx_train":40960}}]}`
	)
	cases := []struct {
		name   string
		kind   Kind
		model  string // canonical id; "" means kind + ":qwen3-8b"
		suffix string // added to the server URL to form base_url
		routes map[string]reply
		want   *canonical.AdapterError
		paths  []string // the GETs expected, in order (when set)
	}{
		// vLLM
		{name: "vllm ready", kind: KindVLLM, model: vllmPersona.model,
			routes: map[string]reply{"GET /v1/models": {body: listVLLM}, "GET /health": {}, "GET /is_sleeping": {status: 404, body: `{"detail":"Not Found"}`}},
			want:   ready, paths: []string{"/v1/models", "/health", "/is_sleeping"}},
		{name: "vllm awake", kind: KindVLLM, model: vllmPersona.model,
			routes: map[string]reply{"GET /v1/models": {body: listVLLM}, "GET /health": {}, "GET /is_sleeping": {body: `{"is_sleeping":false}`}}, want: ready},
		{name: "vllm sleeping", kind: KindVLLM, model: vllmPersona.model,
			routes: map[string]reply{"GET /v1/models": {body: listVLLM}, "GET /health": {}, "GET /is_sleeping": {body: `{"is_sleeping":true}`}}, want: notLoaded},
		{name: "vllm unhealthy engine", kind: KindVLLM, model: vllmPersona.model,
			routes: map[string]reply{"GET /v1/models": {body: listVLLM}, "GET /health": {status: 500}}, want: serverErr},
		{name: "vllm unknown model", kind: KindVLLM, model: "vllm:llama-3-8b",
			routes: map[string]reply{"GET /v1/models": {body: listVLLM}}, want: notFound},
		{name: "vllm 401", kind: KindVLLM, routes: map[string]reply{"GET /v1/models": {status: 401, body: unauth}}, want: authFail},
		{name: "vllm 403", kind: KindVLLM, routes: map[string]reply{"GET /v1/models": {status: 403, body: `{"error":"forbidden"}`}}, want: authFail},
		{name: "vllm 502", kind: KindVLLM, routes: map[string]reply{"GET /v1/models": {status: 502, body: `bad gateway`}}, want: serverErr},
		{name: "vllm malformed list", kind: KindVLLM, routes: map[string]reply{"GET /v1/models": {body: `{"data":[{"id":"Qwen`}}, want: malformed},
		{name: "vllm list of the wrong shape", kind: KindVLLM, routes: map[string]reply{"GET /v1/models": {body: `{"data":"none"}`}}, want: malformed},

		// Ollama
		{name: "ollama loaded (tag :latest implied)", kind: KindOllama, model: ollamaPersona.model,
			routes: map[string]reply{"GET /api/ps": {body: `{"models":[{"name":"qwen3:latest","model":"qwen3:latest","size_vram":5200000000}]}`}},
			want:   ready, paths: []string{"/api/ps"}},
		{name: "ollama installed, not loaded", kind: KindOllama, model: ollamaPersona.model,
			routes: map[string]reply{"GET /api/ps": {body: `{"models":[]}`}, "GET /v1/models": {body: `{"object":"list","data":[{"id":"qwen3:latest"}]}`}},
			want:   notLoaded, paths: []string{"/api/ps", "/v1/models"}},
		{name: "ollama other tag loaded", kind: KindOllama, model: "ollama:qwen3:8b",
			routes: map[string]reply{"GET /api/ps": {body: `{"models":[{"name":"qwen3:latest","model":"qwen3:latest"}]}`}, "GET /v1/models": {body: `{"object":"list","data":[{"id":"qwen3:latest"},{"id":"qwen3:8b"}]}`}},
			want:   notLoaded},
		{name: "ollama unknown model", kind: KindOllama, model: ollamaPersona.model,
			routes: map[string]reply{"GET /api/ps": {body: `{"models":[]}`}, "GET /v1/models": {body: `{"object":"list","data":[{"id":"llama3.2:latest"}]}`}}, want: notFound},
		{name: "ollama without /api/ps", kind: KindOllama, model: ollamaPersona.model,
			routes: map[string]reply{"GET /api/ps": {status: 404, body: `404 page not found`}, "GET /v1/models": {body: `{"object":"list","data":[{"id":"qwen3:latest"}]}`}}, want: ready},
		{name: "ollama behind an authenticating proxy", kind: KindOllama, model: ollamaPersona.model,
			routes: map[string]reply{"GET /api/ps": {status: 401, body: `Unauthorized`}}, want: authFail},

		// LM Studio
		{name: "lmstudio 0.4 loaded", kind: KindLMStudio, routes: map[string]reply{"GET /api/v1/models": {body: lmsLoaded}}, want: ready, paths: []string{"/api/v1/models"}},
		{name: "lmstudio 0.4 on disk", kind: KindLMStudio, routes: map[string]reply{"GET /api/v1/models": {body: lmsOnDisk}}, want: notLoaded},
		{name: "lmstudio 0.3 loaded", kind: KindLMStudio,
			routes: map[string]reply{"GET /api/v1/models": {status: 404, body: `{"error":"Unexpected endpoint or method."}`}, "GET /api/v0/models": {body: fmt.Sprintf(lmsV0, "loaded")}},
			want:   ready, paths: []string{"/api/v1/models", "/api/v0/models"}},
		{name: "lmstudio 0.3 not loaded", kind: KindLMStudio,
			routes: map[string]reply{"GET /api/v1/models": {status: 404}, "GET /api/v0/models": {body: fmt.Sprintf(lmsV0, "not-loaded")}}, want: notLoaded},
		{name: "lmstudio without its REST API", kind: KindLMStudio,
			routes: map[string]reply{"GET /api/v1/models": {status: 404}, "GET /api/v0/models": {status: 404}, "GET /v1/models": {body: `{"object":"list","data":[{"id":"qwen3-8b","object":"model","owned_by":"organization_owner"}]}`}},
			want:   ready, paths: []string{"/api/v1/models", "/api/v0/models", "/v1/models"}},
		{name: "lmstudio unknown model", kind: KindLMStudio, model: "lmstudio:gemma-3", routes: map[string]reply{"GET /api/v1/models": {body: lmsLoaded}}, want: notFound},
		{name: "lmstudio token rejected", kind: KindLMStudio, routes: map[string]reply{"GET /api/v1/models": {status: 401, body: `{"error":"Invalid token"}`}}, want: authFail},

		// llama.cpp
		{name: "llamacpp single model ready", kind: KindLlamaCpp, routes: map[string]reply{"GET /v1/models": {body: singleLC}, "GET /health": {body: `{"status":"ok"}`}}, want: ready, paths: []string{"/v1/models", "/health"}},
		{name: "llamacpp loading (models)", kind: KindLlamaCpp, routes: map[string]reply{"GET /v1/models": {status: 503, body: loadingLC}}, want: notLoaded},
		{name: "llamacpp loading (health)", kind: KindLlamaCpp, routes: map[string]reply{"GET /v1/models": {body: singleLC}, "GET /health": {status: 503, body: loadingLC}}, want: notLoaded},
		{name: "llamacpp router loaded", kind: KindLlamaCpp, routes: map[string]reply{"GET /v1/models": {body: fmt.Sprintf(routerList, "loaded")}, "GET /health": {body: `{"status":"ok"}`}}, want: ready},
		{name: "llamacpp router unloaded", kind: KindLlamaCpp, routes: map[string]reply{"GET /v1/models": {body: fmt.Sprintf(routerList, "unloaded")}}, want: notLoaded},
		{name: "llamacpp router loading", kind: KindLlamaCpp, routes: map[string]reply{"GET /v1/models": {body: fmt.Sprintf(routerList, "loading")}}, want: notLoaded},
		{name: "llamacpp other model", kind: KindLlamaCpp, model: "llamacpp:phi-4", routes: map[string]reply{"GET /v1/models": {body: singleLC}}, want: notFound},

		// OpenRouter
		{name: "openrouter ready", kind: KindOpenRouter, model: "openrouter:deepseek/deepseek-chat", suffix: "/api",
			routes: map[string]reply{"GET /api/v1/key": {body: `{"data":{"label":"sk-or-v1-abc...123","limit":null,"usage":0.5}}`}, "GET /api/v1/models": {body: `{"data":[{"id":"deepseek/deepseek-chat","name":"DeepSeek: DeepSeek V3","context_length":163840}]}`}},
			want:   ready, paths: []string{"/api/v1/key", "/api/v1/models"}},
		{name: "openrouter bad key", kind: KindOpenRouter, model: "openrouter:deepseek/deepseek-chat", suffix: "/api",
			routes: map[string]reply{"GET /api/v1/key": {status: 401, body: `{"error":{"message":"No auth credentials found","code":401}}`}}, want: authFail},
		{name: "openrouter unknown model", kind: KindOpenRouter, model: "openrouter:acme/none", suffix: "/api",
			routes: map[string]reply{"GET /api/v1/key": {body: `{"data":{}}`}, "GET /api/v1/models": {body: `{"data":[{"id":"deepseek/deepseek-chat"}]}`}}, want: notFound},

		// generic
		{name: "generic ready, base URL with /v1", kind: KindGeneric, model: "generic:mistral-7b", suffix: "/v1",
			routes: map[string]reply{"GET /v1/models": {body: listOther}}, want: ready, paths: []string{"/v1/models"}},
		{name: "generic unknown model", kind: KindGeneric, routes: map[string]reply{"GET /v1/models": {body: listOther}}, want: notFound},
		{name: "generic without a model list", kind: KindGeneric,
			routes: map[string]reply{"GET /v1/models": {status: 404, body: `Cannot GET /v1/models`}},
			want:   &canonical.AdapterError{Class: canonical.ErrInvalidRequest}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newStub(t)
			for route, r := range tc.routes {
				srv.on(route, r)
			}
			cfg := newConfig(tc.kind, srv.URL+tc.suffix, newEnv())
			cfg.ExtraHeaders = map[string]string{"X-Title": "metis-test"}
			a := mustNew(t, cfg)
			model := tc.model
			if model == "" {
				model = string(tc.kind) + ":qwen3-8b"
			}
			assertReadyOutcome(t, tc.want, a.Ready(context.Background(), model))

			reqs := srv.requests("")
			require.NotEmpty(t, reqs)
			var paths []string
			for _, r := range reqs {
				assert.Equal(t, "GET", r.Method, "ready only reads")
				assert.Equal(t, "Bearer sk-test-FAKE", r.Header.Get("Authorization"))
				assert.Equal(t, "metis-test", r.Header.Get("X-Title"))
				paths = append(paths, r.Path)
			}
			if tc.paths != nil {
				if diff := cmp.Diff(tc.paths, paths); diff != "" {
					t.Errorf("paths mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestReadyNetworkFailure(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			srv := newStub(t)
			srv.Close()
			a := mustNew(t, newConfig(k, srv.URL, newEnv()))
			err := a.Ready(context.Background(), string(k)+":m")
			assertReadyOutcome(t, &canonical.AdapterError{Class: canonical.ErrNetwork, Retryable: true}, err)
		})
	}
}

func TestReadyCancelledContext(t *testing.T) {
	srv := newStub(t).on("GET /v1/models", reply{body: `{"data":[]}`})
	a := mustNew(t, newConfig(KindGeneric, srv.URL, newEnv()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ae := adapterError(t, a.Ready(ctx, "generic:m"))
	assert.Equal(t, canonical.ErrCancelled, ae.Class)
}

func TestReadyNeedsAModel(t *testing.T) {
	a := mustNew(t, newConfig(KindGeneric, "http://127.0.0.1:1", newEnv()))
	ae := adapterError(t, a.Ready(context.Background(), ""))
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
}

// TestReadyAgainstEmulator probes the shared emulator's Ollama routes:
// WithModels are installed, WithLoadedModels also in /api/ps.
func TestReadyAgainstEmulator(t *testing.T) {
	srv := emulator.NewServer(emulator.WithModels("qwen3:latest", "llama3.2:latest"), emulator.WithLoadedModels("qwen3:latest"), emulator.WithoutAuth())
	defer srv.Close()
	cfg := newConfig(KindOllama, srv.URL, newEnv())
	cfg.APIKey = ""
	cfg.Models["ollama:llama3.2"] = adapters.ModelConfig{WireName: "llama3.2"}
	a := mustNew(t, cfg)
	assert.NoError(t, a.Ready(context.Background(), "ollama:qwen3"))
	assertReadyOutcome(t, notLoaded, a.Ready(context.Background(), "ollama:llama3.2"))
	assertReadyOutcome(t, notFound, a.Ready(context.Background(), "ollama:gemma3"))
}
