package compat_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// testKey is an obviously fake key.
const testKey = "sk-test-FAKE"

// httpClient keeps no connection alive, so no goroutine outlives a test.
var httpClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func start(t *testing.T, opts ...emulator.Option) *emulator.Server {
	t.Helper()
	srv := emulator.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

func streamName(stream bool) string {
	if stream {
		return "/stream"
	}
	return "/complete"
}

// contentCase is a reply the emulator can script.
type contentCase struct {
	name  string
	reply emulator.Reply
}

func contentCases() []contentCase {
	usage := canonical.TokenUsage{InputTokens: 40, OutputTokens: 12}
	add := emulator.ToolCall{Name: "add", Input: json.RawMessage(`{"a": 2, "b": 3}`)}
	return []contentCase{
		{"text", emulator.Reply{Text: "Hello — ünïcode, \"quotes\" and a\nnewline.", Usage: usage}},
		{"thinking and text", emulator.Reply{Thinking: "**Plan**\n\nAdd them.", Text: "2 + 3 = 5", Usage: canonical.TokenUsage{InputTokens: 40, OutputTokens: 30, ReasoningTokens: 18}}},
		{"tool call", emulator.Reply{ToolCalls: []emulator.ToolCall{add}, Usage: usage}},
		{"text and parallel tool calls", emulator.Reply{Text: "Both at once.", ToolCalls: []emulator.ToolCall{add,
			{Name: "add", Input: json.RawMessage(`{"a": 10, "b": 20}`)}}, Usage: usage}},
		{"tool call without input", emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "add"}}, Usage: usage}},
		{"max tokens", emulator.Reply{Text: "Cut sh", StopReason: canonical.StopMaxTokens, Usage: usage}},
		{"cached input", emulator.Reply{Text: "From cache.", Usage: canonical.TokenUsage{InputTokens: 5, CachedInputTokens: 100, OutputTokens: 3}}},
	}
}

// errorCase is a failure kind and each provider's status and error type.
type errorCase struct {
	kind      emulator.ErrorKind
	anthropic struct {
		status int
		typ    string
	}
	openai struct {
		status int
		typ    string
	}
	gemini struct {
		status int
		typ    string
	}
}

func errorCases() []errorCase {
	rows := []struct {
		kind                  emulator.ErrorKind
		aStatus, oStatus, gSt int
		aType, oType, gType   string
	}{
		{emulator.ErrorInvalidRequest, 400, 400, 400, "invalid_request_error", "invalid_request_error", "INVALID_ARGUMENT"},
		{emulator.ErrorAuth, 401, 401, 400, "authentication_error", "invalid_request_error", "INVALID_ARGUMENT"},
		{emulator.ErrorRateLimit, 429, 429, 429, "rate_limit_error", "tokens", "RESOURCE_EXHAUSTED"},
		{emulator.ErrorOverloaded, 529, 503, 503, "overloaded_error", "server_error", "UNAVAILABLE"},
		{emulator.ErrorServer, 500, 500, 500, "api_error", "server_error", "INTERNAL"},
		{emulator.ErrorContextOverflow, 400, 400, 400, "invalid_request_error", "invalid_request_error", "INVALID_ARGUMENT"},
		{emulator.ErrorModelNotFound, 404, 404, 404, "not_found_error", "invalid_request_error", "NOT_FOUND"},
	}
	out := make([]errorCase, len(rows))
	for i, r := range rows {
		out[i].kind = r.kind
		out[i].anthropic.status, out[i].anthropic.typ = r.aStatus, r.aType
		out[i].openai.status, out[i].openai.typ = r.oStatus, r.oType
		out[i].gemini.status, out[i].gemini.typ = r.gSt, r.gType
	}
	return out
}

// compact re-encodes JSON compactly, for comparing arguments whatever
// their spacing.
func compact(t *testing.T, data []byte) json.RawMessage {
	t.Helper()
	if len(bytes.TrimSpace(data)) == 0 {
		return json.RawMessage("{}")
	}
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, data), "%s", data)
	return buf.Bytes()
}

// assertCalls compares the calls an SDK decoded with the script: names
// and arguments as JSON values, and ids made up with the provider's prefix.
func assertCalls(t *testing.T, want, got []emulator.ToolCall, idPrefix string) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Name, got[i].Name)
		in := want[i].Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		assert.JSONEq(t, string(in), string(got[i].Input))
		if idPrefix != "" {
			assert.True(t, strings.HasPrefix(got[i].ID, idPrefix), "call id %q", got[i].ID)
		}
	}
}

// httpResponse is the raw response an SDK hands back on request.
type httpResponse = http.Response
