package emulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func TestScriptedMidStreamErrors(t *testing.T) {
	reply := emulator.Reply{Text: "Hello, world!", StreamError: emulator.ErrorOverloaded}
	tests := []struct {
		name string
		call call
		sep  string
		// last is the error event's name and a fragment of its data.
		lastName, lastData string
	}{
		{"anthropic", anthropicCall(`{"model":"m","max_tokens":9,"messages":[],"stream":true}`), "\n\n", "error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"openai-chat", chatCall(`{"model":"m","messages":[],"stream":true}`), "\n\n", "", `{"error":{"message":`},
		{"openai-responses", responsesCall(`{"model":"m","input":"x","stream":true}`), "\n\n", "response.failed", `"status":"failed"`},
		{"gemini", geminiCall("gemini-2.5-flash", true, `{"contents":[{"parts":[{"text":"x"}]}]}`), "\r\n\r\n", "", `{"error":{"code":503`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(reply))
			status, _, body := do(t, srv, tt.call)
			require.Equal(t, 200, status, body)
			events := splitSSE(t, body, tt.sep)
			last := events[len(events)-1]
			assert.Equal(t, tt.lastName, last.name)
			assert.Contains(t, last.data, tt.lastData)
			assert.Contains(t, body, "Hello, world", "the content streams before the error")
			for _, finish := range []string{"message_delta", "response.completed", `"finish_reason":"stop"`, `"finishReason"`, "[DONE]"} {
				assert.NotContains(t, body, finish, "the error replaces the finishing events")
			}
		})
	}
}

func TestScriptedStreamErrorAfterEvents(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "Hello, world!", StreamError: emulator.ErrorRateLimit,
		ErrorCode: "insufficient_quota", ErrorMessage: "You exceeded your current quota.", StreamErrorAfter: 2}))
	_, _, body := do(t, srv, responsesCall(`{"model":"m","input":"x","stream":true}`))
	var names []string
	var errEv map[string]any
	for _, ev := range splitSSE(t, body, "\n\n") {
		names = append(names, ev.name)
		if ev.name == "error" {
			errEv = obj(t, ev.data)
		}
	}
	assert.Equal(t, []string{"response.created", "response.in_progress", "error", "response.failed"}, names,
		"as the real insufficient_quota stream: two events, the error, the failed response")
	assert.Equal(t, "insufficient_quota", at(t, errEv, "error", "code"))
	assert.Equal(t, "insufficient_quota", at(t, errEv, "error", "type"))
	assert.Equal(t, 2, num(t, errEv["sequence_number"]))
}

// TestStreamErrorsClassifyThroughTheAdapters streams each provider's
// scripted mid-stream error through its real adapter: the partial text
// survives in a message.complete with stop_reason error, and the error
// has the class fault injection's events get.
func TestStreamErrorsClassifyThroughTheAdapters(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	tests := []struct {
		model string
		kind  emulator.ErrorKind
		class canonical.ErrorClass
	}{
		{"anthropic:claude-sonnet-4-6", emulator.ErrorOverloaded, canonical.ErrRateLimit},
		{"openai:gpt-5", emulator.ErrorServer, canonical.ErrServer},
		{"openai:gpt-4.1", emulator.ErrorServer, canonical.ErrServer},
		{"gemini:gemini-2.5-flash", emulator.ErrorOverloaded, canonical.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Text: "partial answer", StreamError: tt.kind}))
			mc, err := reg.Resolve(tt.model)
			require.NoError(t, err)
			a, err := reg.Open(mc.Adapter, providers.Factories(), func(string) string { return testKey }, func(c *adapters.Config) {
				c.BaseURL = srv.URL
				c.MaxRetries = 0
				c.HTTPClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			})
			require.NoError(t, err)
			defer a.Close()
			var last canonical.StreamEvent
			var streamErr error
			text := ""
			for ev, err := range a.Stream(context.Background(), &canonical.Request{RequestID: "req_1", Model: tt.model, MaxOutputTokens: 64,
				Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}}}}) {
				if err != nil {
					streamErr = err
					break
				}
				if ev.Type == canonical.EventTextDelta {
					text += ev.Text
				}
				last = ev
			}
			var ae *canonical.AdapterError
			require.True(t, errors.As(streamErr, &ae), "a typed error: %v", streamErr)
			assert.Equal(t, tt.class, ae.Class, ae.Error())
			assert.Equal(t, "partial answer", text)
			assert.Equal(t, canonical.EventMessageComplete, last.Type)
			data, _ := json.Marshal(last)
			assert.True(t, strings.Contains(string(data), `"error"`), "message.complete with stop_reason error: %s", data)
		})
	}
}
