package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/ollama"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func ollamaCall(body string) call {
	return call{path: "/api/chat", body: body, header: map[string]string{"Authorization": "Bearer " + testKey}}
}

// ndjsonLines splits an NDJSON body into its decoded lines, failing on a
// line that is not a JSON object or a body not ended by a newline.
func ndjsonLines(t *testing.T, body string) []map[string]any {
	t.Helper()
	require.True(t, strings.HasSuffix(body, "\n"), "body does not end with a newline: %q", body)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		out = append(out, obj(t, l))
	}
	return out
}

// TestOllamaCalibration renders the real recording's turn and compares
// the whole body with the recorded one: the same members in the same
// order, the same values but for created_at (the emulator's clock).
func TestOllamaCalibration(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "ollama-native", "ollama-nonstream-after-tool-result")
	var recorded struct {
		Message         struct{ Content string } `json:"message"`
		PromptEvalCount int                      `json:"prompt_eval_count"`
		EvalCount       int                      `json:"eval_count"`
	}
	require.NoError(t, json.Unmarshal(rec.Response, &recorded))
	srv := start(t, emulator.WithAPIKey(testKey), emulator.WithReplies(emulator.Reply{
		Text:  recorded.Message.Content,
		Usage: canonical.TokenUsage{InputTokens: recorded.PromptEvalCount, OutputTokens: recorded.EvalCount},
	}))
	status, h, body := do(t, srv, ollamaCall(string(rec.Request)))
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, rec.ContentType, h.Get("Content-Type"))
	assert.Equal(t, memberOrder(t, rec.Response), memberOrder(t, []byte(body)), "members and their order")
	want, got := obj(t, string(rec.Response)), obj(t, body)
	delete(want, "created_at")
	delete(got, "created_at")
	assert.Equal(t, want, got)
}

func TestOllamaStream(t *testing.T) {
	reply := emulator.Reply{Thinking: "Let me think.", Text: "Hello there, friend.", ToolCalls: []emulator.ToolCall{
		{Name: "get_weather", Input: json.RawMessage(`{"city": "Paris"}`)},
		{ID: "call_7", Name: "get_weather", Input: json.RawMessage(`{"city":"Oslo"}`)},
	}, Usage: canonical.TokenUsage{InputTokens: 20, CachedInputTokens: 100, OutputTokens: 9}}
	srv := start(t, emulator.WithReplies(reply, reply), emulator.WithChunkSize(8))

	status, h, body := do(t, srv, ollamaCall(`{"model":"qwen3","messages":[{"role":"user","content":"hi"}],"think":"high"}`))
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, "application/x-ndjson", h.Get("Content-Type"), "stream is the default")
	lines := ndjsonLines(t, body)
	var thinking, text strings.Builder
	for _, l := range lines[:len(lines)-2] {
		assert.Equal(t, false, l["done"])
		m := l["message"].(map[string]any)
		assert.Equal(t, "assistant", m["role"])
		th, _ := m["thinking"].(string)
		thinking.WriteString(th)
		text.WriteString(m["content"].(string))
	}
	assert.Equal(t, reply.Thinking, thinking.String())
	assert.Equal(t, reply.Text, text.String())
	calls := at(t, lines[len(lines)-2], "message", "tool_calls").([]any)
	require.Len(t, calls, 2, "the calls come whole, in one line")
	assert.Equal(t, map[string]any{"function": map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}, calls[0], "no id unless scripted")
	assert.Equal(t, "call_7", at(t, calls[1], "id"))
	last := lines[len(lines)-1]
	assert.Equal(t, true, last["done"])
	assert.Equal(t, "stop", last["done_reason"])
	assert.Equal(t, 20, num(t, last["prompt_eval_count"]), "the cached prefix is not counted")
	assert.Equal(t, 9, num(t, last["eval_count"]))

	// Without think, the thinking is not shown.
	_, _, body = do(t, srv, ollamaCall(`{"model":"qwen3","messages":[],"stream":false,"think":false}`))
	whole := obj(t, body)
	_, shown := whole["message"].(map[string]any)["thinking"]
	assert.False(t, shown, "thinking shown without think: %s", body)
	assert.Equal(t, reply.Text, at(t, whole, "message", "content"))
}

func TestOllamaErrors(t *testing.T) {
	srv := start(t, emulator.WithModels("qwen3:latest"), emulator.WithReplies(
		emulator.Reply{Text: "partial answer", StreamError: emulator.ErrorServer},
		emulator.Reply{Error: emulator.ErrorOverloaded},
	))
	status, _, body := do(t, srv, ollamaCall(`{"model":"nope","messages":[]}`))
	assert.Equal(t, http.StatusNotFound, status)
	assert.JSONEq(t, `{"error":"model \"nope\" not found, try pulling it first"}`, body)

	status, _, body = do(t, srv, ollamaCall(`{"model":"qwen3:latest","messages":[]}`))
	require.Equal(t, http.StatusOK, status)
	lines := ndjsonLines(t, body)
	assert.Equal(t, map[string]any{"error": "an error was encountered while running the model: unexpected EOF"}, lines[len(lines)-1], "the error line replaces the done line")

	status, _, body = do(t, srv, ollamaCall(`{"model":"qwen3:latest","messages":[]}`))
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Contains(t, body, `"error":"server busy`)

	status, _, body = do(t, srv, ollamaCall(`{"messages":[]}`))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.JSONEq(t, `{"error":"model is required"}`, body)
}

func TestOllamaShowAndVersion(t *testing.T) {
	srv := start(t, emulator.WithModels("qwen3:latest"))
	status, _, body := do(t, srv, call{path: "/api/show", body: `{"model":"qwen3"}`})
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, []any{"completion", "tools", "thinking", "vision"}, obj(t, body)["capabilities"])
	status, _, _ = do(t, srv, call{path: "/api/show", body: `{"model":"mistral"}`})
	assert.Equal(t, http.StatusNotFound, status)
	status, _, body = do(t, srv, call{method: http.MethodGet, path: "/api/version"})
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"version"`)
}

// TestOllamaAdapterEndToEnd runs the native adapter against the
// emulator: readiness and learned capabilities, a streamed tool turn and
// a mid-stream error.
func TestOllamaAdapterEndToEnd(t *testing.T) {
	srv := start(t, emulator.WithAPIKey(testKey), emulator.WithModels("qwen3:latest"), emulator.WithReplies(
		emulator.Reply{Thinking: "Weather needed.", ToolCalls: []emulator.ToolCall{{Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}}},
		emulator.Reply{Text: "It is sunny.", StreamError: emulator.ErrorServer},
	))
	a, err := ollama.New(adapters.Config{BaseURL: srv.URL, APIKey: testKey, Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer a.Close()
	ctx := context.Background()
	require.NoError(t, a.Ready(ctx, "ollama-native:qwen3"))
	caps := a.Capabilities("ollama-native:qwen3")
	require.True(t, caps.SupportsTools && caps.SupportsThinking, "capabilities from /api/show: %+v", caps)

	tool := canonical.ToolDefinition{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}
	req := &canonical.Request{Model: "ollama-native:qwen3", Tools: []canonical.ToolDefinition{tool}, Thinking: &canonical.ThinkingConfig{},
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Weather?"}}}}}
	evs, err := adaptertest.Collect(a.Stream(ctx, req))
	require.NoError(t, err)
	resp := adaptertest.Final(t, evs)
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	require.Len(t, resp.Content, 2)
	assert.Equal(t, canonical.ThinkingBlock{Text: "Weather needed."}, resp.Content[0])

	_, err = adaptertest.Collect(a.Stream(ctx, req))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrServer, ae.Class)
	assert.Contains(t, ae.Message, "unexpected EOF")
}

// memberOrder lists the object members of a JSON document as paths, in
// document order.
func memberOrder(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	var out []string
	var walk func(path string)
	walk = func(path string) {
		tok, err := dec.Token()
		require.NoError(t, err)
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				require.NoError(t, err)
				out = append(out, path+"/"+k.(string))
				walk(path + "/" + k.(string))
			}
			_, err = dec.Token()
			require.NoError(t, err)
		case json.Delim('['):
			for dec.More() {
				walk(path + "[]")
			}
			_, err = dec.Token()
			require.NoError(t, err)
		}
	}
	walk("")
	return out
}
