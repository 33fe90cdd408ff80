package openaicompat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// caps is the part of a declaration Discover can change.
type caps struct {
	Tools, Thinking, Images bool
	Context                 int
}

func capsOf(c canonical.Capabilities) caps {
	return caps{c.SupportsTools, c.SupportsThinking, c.SupportsImages, c.MaxContextTokens}
}

// TestDiscover: each server's answer (in the shape the server sends it,
// testdata/) becomes the model's declaration, the models.yaml
// capabilities of the model still winning; before Discover the kind's
// base holds. The bodies are written from the servers' API references:
// Ollama's /api/show, LM Studio's /api/v1 (0.4) and /api/v0 (0.3) model
// lists, llama.cpp's /props with and without a tool-calling template.
func TestDiscover(t *testing.T) {
	tests := []struct {
		name     string
		kind     Kind
		wire     string
		declared string // models.yaml capabilities of the model
		routes   map[string]string
		want     caps
		path     string // the probe sent
	}{
		{name: "ollama tools and thinking", kind: KindOllama, wire: "qwen3",
			routes: map[string]string{"POST /api/show": "ollama-show-qwen3.json"},
			want:   caps{Tools: true, Thinking: true, Context: 4096}, path: "/api/show"},
		{name: "ollama vision only", kind: KindOllama, wire: "gemma3:4b",
			routes: map[string]string{"POST /api/show": "ollama-show-gemma3.json"},
			want:   caps{Images: true, Context: 4096}, path: "/api/show"},
		{name: "ollama, models.yaml wins", kind: KindOllama, wire: "qwen3", declared: `{"supports_thinking":false,"max_context_tokens":40960}`,
			routes: map[string]string{"POST /api/show": "ollama-show-qwen3.json"},
			want:   caps{Tools: true, Context: 40960}, path: "/api/show"},
		{name: "lmstudio 0.4", kind: KindLMStudio, wire: "qwen/qwen3-8b",
			routes: map[string]string{"GET /api/v1/models": "lmstudio-api-v1-models.json"},
			want:   caps{Tools: true, Thinking: true, Context: 16384}, path: "/api/v1/models"},
		{name: "lmstudio 0.4 vision, not loaded", kind: KindLMStudio, wire: "google/gemma-3-12b",
			routes: map[string]string{"GET /api/v1/models": "lmstudio-api-v1-models.json"},
			want:   caps{Images: true, Context: 4096}, path: "/api/v1/models"},
		{name: "lmstudio 0.3", kind: KindLMStudio, wire: "qwen/qwen3-8b",
			routes: map[string]string{"GET /api/v0/models": "lmstudio-api-v0-models.json"},
			want:   caps{Tools: true, Context: 8192}, path: "/api/v0/models"},
		{name: "lmstudio 0.3 vlm", kind: KindLMStudio, wire: "google/gemma-3-4b",
			routes: map[string]string{"GET /api/v0/models": "lmstudio-api-v0-models.json"},
			want:   caps{Images: true, Context: 4096}, path: "/api/v0/models"},
		{name: "llamacpp with --jinja", kind: KindLlamaCpp, wire: "openai/gpt-oss-20b",
			routes: map[string]string{"GET /props": "llamacpp-props.json"},
			want:   caps{Tools: true, Context: 65536}, path: "/props"},
		{name: "llamacpp template without tools", kind: KindLlamaCpp, wire: "TinyLlama/TinyLlama-1.1B-Chat-v1.0", declared: `{"supports_images":false}`,
			routes: map[string]string{"GET /props": "llamacpp-props-no-jinja.json"},
			want:   caps{Context: 4096}, path: "/props"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newStub(t)
			for route, file := range tt.routes {
				srv.on(route, reply{body: string(readTestdata(t, file))})
			}
			cfg := newConfig(tt.kind, srv.URL, newEnv())
			model := string(tt.kind) + ":m"
			cfg.Models[model] = adapters.ModelConfig{WireName: tt.wire, Capabilities: json.RawMessage(tt.declared)}
			a := mustNew(t, cfg)
			before := capsOf(a.Capabilities(model))
			assert.False(t, before.Tools || before.Thinking, "nothing declared before Discover")

			got, err := a.Discover(context.Background(), model)
			require.NoError(t, err)
			assert.Equal(t, tt.want, capsOf(got))
			assert.Equal(t, tt.want, capsOf(a.Capabilities(model)), "the declaration follows")

			var paths []string
			for _, r := range srv.requests("") {
				paths = append(paths, r.Path)
			}
			assert.Equal(t, tt.path, paths[len(paths)-1])
			if tt.kind == KindOllama {
				assert.JSONEq(t, `{"model":"`+tt.wire+`"}`, string(srv.requests("POST /api/show")[0].Body))
			}
		})
	}
}

// TestDiscoverFailures: a model the server does not know is
// model_not_found, an unreadable answer invalid_response, and neither
// changes what was learned; kinds that report nothing send nothing.
func TestDiscoverFailures(t *testing.T) {
	srv := newStub(t).
		on("POST /api/show", reply{body: string(readTestdata(t, "ollama-show-qwen3.json"))},
			reply{status: 404, body: `{"error":"model 'qwen3' not found"}`},
			reply{body: `{"capabilities":`})
	cfg := newConfig(KindOllama, srv.URL, newEnv())
	cfg.Models["ollama:m"] = adapters.ModelConfig{WireName: "qwen3"}
	a := mustNew(t, cfg)
	_, err := a.Discover(context.Background(), "ollama:m")
	require.NoError(t, err)

	_, err = a.Discover(context.Background(), "ollama:m")
	assert.Equal(t, canonical.CodeModelNotFound, canonical.CodeOf(err), "%v", err)
	_, err = a.Discover(context.Background(), "ollama:m")
	assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%v", err)
	assert.True(t, a.Capabilities("ollama:m").SupportsTools, "what was learned stays")

	_, err = a.Discover(context.Background(), "")
	var ae *canonical.AdapterError
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)

	for _, kind := range []Kind{KindVLLM, KindOpenRouter, KindDeepSeek, KindGeneric} {
		srv := newStub(t)
		a := mustNew(t, newConfig(kind, srv.URL, newEnv()))
		got, err := a.Discover(context.Background(), string(kind)+":m")
		require.NoError(t, err)
		assert.Equal(t, a.Capabilities(string(kind)+":m"), got)
		assert.Empty(t, srv.requests(""), "%s: no probe", kind)
	}
}

// TestDiscoverRouterProps: llama.cpp's router answers /props without a
// model with 400; Discover asks again naming it.
func TestDiscoverRouterProps(t *testing.T) {
	srv := newStub(t).on("GET /props",
		reply{status: 400, body: `{"error":{"code":400,"message":"model name is missing from the request","type":"invalid_request_error"}}`},
		reply{body: string(readTestdata(t, "llamacpp-props.json"))})
	cfg := newConfig(KindLlamaCpp, srv.URL, newEnv())
	cfg.Models["llamacpp:m"] = adapters.ModelConfig{WireName: "openai/gpt-oss-20b"}
	a := mustNew(t, cfg)
	got, err := a.Discover(context.Background(), "llamacpp:m")
	require.NoError(t, err)
	assert.True(t, got.SupportsTools)
	require.Len(t, srv.requests("GET /props"), 2)
}

// FuzzDiscover feeds arbitrary bodies to the capability probes of the
// kinds that have them: Discover never panics and answers a declaration
// or an AdapterError naming the probe.
func FuzzDiscover(f *testing.F) {
	for _, name := range []string{"ollama-show-qwen3.json", "lmstudio-api-v1-models.json", "lmstudio-api-v0-models.json", "llamacpp-props.json"} {
		f.Add(200, readTestdata(f, name))
	}
	for _, s := range []string{`{"capabilities":null}`, `{"capabilities":{"vision":"x"}}`, `{"models":[{"key":"qwen3-8b","capabilities":[1]}]}`,
		`{"chat_template_caps":{"supports_tools":1}}`, `{"modalities":null}`, `[]`, `null`, `{`, ``} {
		f.Add(200, []byte(s))
	}
	f.Add(400, []byte(`{"error":"model name is missing"}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = 100 + abs(status)%500
		for _, kind := range []Kind{KindOllama, KindLMStudio, KindLlamaCpp} {
			cfg := newConfig(kind, "http://127.0.0.1:1", newEnv())
			cfg.Transport = probeTransport{status, body}
			a, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Discover(context.Background(), string(kind)+":qwen3-8b")
			if err == nil {
				continue
			}
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) || !strings.HasPrefix(ae.Message, "ready:") {
				t.Fatalf("%s: unexpected error %v", kind, err)
			}
		}
	})
}
