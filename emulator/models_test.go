package emulator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
)

func TestModelLists(t *testing.T) {
	srv := start(t, emulator.WithModels("llama3.2:latest", "qwen3:8b"), emulator.WithLoadedModels("qwen3:8b", "phi4:latest"))

	status, _, body := do(t, srv, call{method: "GET", path: "/v1/models", header: map[string]string{"Authorization": "Bearer " + testKey}})
	require.Equal(t, 200, status, body)
	assert.JSONEq(t, `{"object":"list","data":[
		{"id":"llama3.2:latest","object":"model","created":1767225600,"owned_by":"emulator"},
		{"id":"qwen3:8b","object":"model","created":1767225600,"owned_by":"emulator"}]}`, body)

	status, _, body = do(t, srv, call{method: "GET", path: "/v1/models", header: map[string]string{"x-api-key": testKey}})
	require.Equal(t, 200, status, body)
	assert.JSONEq(t, `{"data":[
		{"type":"model","id":"llama3.2:latest","display_name":"llama3.2:latest","created_at":"2026-01-01T00:00:00Z"},
		{"type":"model","id":"qwen3:8b","display_name":"qwen3:8b","created_at":"2026-01-01T00:00:00Z"}],
		"has_more":false,"first_id":"llama3.2:latest","last_id":"qwen3:8b"}`, body)

	status, _, body = do(t, srv, call{method: "GET", path: "/v1beta/models", header: map[string]string{"x-goog-api-key": testGoogKey}})
	require.Equal(t, 200, status, body)
	assert.Equal(t, "models/qwen3:8b", at(t, obj(t, body), "models", 1, "name"))

	// Ollama: no key needed; tags lists installed models, ps loaded ones.
	status, _, body = do(t, srv, call{method: "GET", path: "/api/tags"})
	require.Equal(t, 200, status, body)
	tags := obj(t, body)
	require.Len(t, tags["models"], 3)
	assert.Equal(t, "llama3.2:latest", at(t, tags, "models", 0, "name"))
	assert.Equal(t, "phi4:latest", at(t, tags, "models", 2, "model"))
	assert.Equal(t, "gguf", at(t, tags, "models", 0, "details", "format"))

	status, _, body = do(t, srv, call{method: "GET", path: "/api/ps"})
	require.Equal(t, 200, status, body)
	ps := obj(t, body)
	require.Len(t, ps["models"], 2)
	assert.Equal(t, "qwen3:8b", at(t, ps, "models", 0, "name"))
	assert.Equal(t, "2026-01-01T00:05:00Z", at(t, ps, "models", 0, "expires_at"))
	assert.Contains(t, at(t, ps, "models", 0), "size_vram")

	status, h, body := do(t, srv, call{method: "GET", path: "/health"})
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"status":"ok"}`, body)
	assert.Equal(t, "1", h.Get(emulator.HealthHeader), "/health says it is the emulator")
	_, h, _ = do(t, srv, call{method: "GET", path: "/api/ps"})
	assert.Empty(t, h.Get(emulator.HealthHeader), "only /health says it")
}

func TestEmptyModelLists(t *testing.T) {
	srv := start(t)
	_, _, body := do(t, srv, call{method: "GET", path: "/v1/models", header: map[string]string{"Authorization": "Bearer " + testKey}})
	assert.JSONEq(t, `{"object":"list","data":[]}`, body)
	_, _, body = do(t, srv, call{method: "GET", path: "/api/ps"})
	assert.JSONEq(t, `{"models":[]}`, body)
}

func TestUnknownModelIsNotFound(t *testing.T) {
	srv := start(t, emulator.WithModels("gpt-5"), emulator.WithReplies(emulator.Reply{Text: "ok"}))
	status, _, body := do(t, srv, responsesCall(`{"model":"gpt-9","input":"x"}`))
	assert.Equal(t, 404, status)
	assert.Equal(t, "model_not_found", at(t, obj(t, body), "error", "code"))
	status, _, body = do(t, srv, geminiCall("gemini-9", false, `{"contents":[]}`))
	assert.Equal(t, 404, status)
	assert.Equal(t, "NOT_FOUND", at(t, obj(t, body), "error", "status"))
	assert.Equal(t, 1, srv.Pending())

	status, _, _ = do(t, srv, responsesCall(`{"model":"gpt-5","input":"x"}`))
	assert.Equal(t, 200, status)
}
