package emulator_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
)

// These tests hold the emulator to the real recordings in
// testdata/recordings: every key path the emulator writes for a kind of
// body must occur in some recording of that kind. Values are not compared;
// the per-provider tests do that by hand.

// opaque names members whose contents are the script's data (tool
// arguments), not the wire format.
var opaque = map[string]bool{"input": true, "args": true}

// keyPaths adds the key paths of a decoded JSON value to out: "a.b" for
// object members, "a[]" for array elements.
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := prefix + "." + k
			out[p] = true
			if !opaque[k] {
				keyPaths(e, p, out)
			}
		}
	case []any:
		for _, e := range x {
			keyPaths(e, prefix+"[]", out)
		}
	}
}

// shapes maps a kind of body to the key paths seen in it.
type shapes map[string]map[string]bool

func (s shapes) add(t *testing.T, kind, data string) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(data), &v), "%s: %.200s", kind, data)
	if s[kind] == nil {
		s[kind] = map[string]bool{}
	}
	keyPaths(v, "", s[kind])
}

// kindOf names an SSE event's body by its "type" member, or by fallback.
func kindOf(t *testing.T, data, fallback string) string {
	var head struct {
		Type string `json:"type"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &head))
	if head.Type == "" {
		return fallback
	}
	return head.Type
}

// addSSE adds every data payload of an SSE body. A Responses event's
// response object also counts as a "response", the kind of a
// non-streamed body.
func (s shapes) addSSE(t *testing.T, body, sep, fallback string) {
	t.Helper()
	for _, ev := range splitSSE(t, body, sep) {
		data := strings.TrimSpace(ev.data)
		if data == "[DONE]" {
			continue
		}
		s.add(t, kindOf(t, data, fallback), data)
		var inner struct {
			Response json.RawMessage `json:"response"`
		}
		if json.Unmarshal([]byte(data), &inner) == nil && len(inner.Response) > 0 && inner.Response[0] == '{' {
			s.add(t, "response", string(inner.Response))
		}
	}
}

// recorded reads the fixtures of one API into shapes; more apis add
// recordings whose bodies are the same format (Bedrock InvokeModel
// carries Anthropic Messages bodies).
func recorded(t *testing.T, api, streamKind string, more ...string) shapes {
	s := shapes{}
	for _, api := range append([]string{api}, more...) {
		s.read(t, api, streamKind)
	}
	return s
}

func (s shapes) read(t *testing.T, api, streamKind string) {
	dir := filepath.Join(fixturesDir(t), api)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "response.txt")); err == nil {
			sep := "\n\n"
			if strings.Contains(string(b), "\r\n") {
				sep = "\r\n\r\n"
			}
			s.addSSE(t, string(b), sep, streamKind)
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "response.json")); err == nil {
			kind := "response"
			if strings.HasPrefix(e.Name(), "error-") {
				kind = "error"
			}
			s.add(t, kind, string(b))
		}
	}
}

// assertSubset checks every emitted key path against the recordings.
func assertSubset(t *testing.T, got, want shapes) {
	t.Helper()
	for kind, paths := range got {
		rec, ok := want[kind]
		if !ok {
			t.Logf("no recording of %q to compare with", kind)
			continue
		}
		var extra []string
		for p := range paths {
			if !rec[p] {
				extra = append(extra, p)
			}
		}
		slices.Sort(extra)
		assert.Empty(t, extra, "%s: key paths no recording has", kind)
	}
}

func TestShapesMatchRecordings(t *testing.T) {
	thinking := toolTurn
	thinking.Thinking = "**Plan**\n\nAdd.\n\n**Check**\n\nOk."
	withID := toolTurn
	withID.ToolCalls = []emulator.ToolCall{{ID: "abc123", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)}}

	t.Run("anthropic", func(t *testing.T) {
		want := recorded(t, "anthropic", "", "bedrock-anthropic")
		srv := start(t, emulator.WithReplies(thinking, thinking, emulator.Reply{Error: emulator.ErrorAuth}))
		got := shapes{}
		body := `{"model":"m","max_tokens":9,"messages":[],"thinking":{"type":"enabled","budget_tokens":1024}`
		_, _, b := do(t, srv, anthropicCall(body+`,"stream":true}`))
		got.addSSE(t, b, "\n\n", "")
		_, _, b = do(t, srv, anthropicCall(body+`}`))
		got.add(t, "response", b)
		_, _, b = do(t, srv, anthropicCall(body+`}`))
		got.add(t, "error", b)
		assertSubset(t, got, want)
	})
	t.Run("openai-chat", func(t *testing.T) {
		want := recorded(t, "openai-chat", "chunk")
		srv := start(t, emulator.WithReplies(toolTurn, toolTurn, emulator.Reply{Error: emulator.ErrorContextOverflow}))
		got := shapes{}
		_, _, b := do(t, srv, chatCall(`{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`))
		got.addSSE(t, b, "\n\n", "chunk")
		_, _, b = do(t, srv, chatCall(`{"model":"m","messages":[]}`))
		got.add(t, "response", b)
		_, _, b = do(t, srv, chatCall(`{"model":"m","messages":[]}`))
		got.add(t, "error", b)
		assertSubset(t, got, want)
	})
	t.Run("openai-responses", func(t *testing.T) {
		want := recorded(t, "openai-responses", "")
		srv := start(t, emulator.WithReplies(thinking, toolTurn, emulator.Reply{Error: emulator.ErrorInvalidRequest}))
		got := shapes{}
		_, _, b := do(t, srv, responsesCall(`{"model":"m","input":"x","stream":true,"reasoning":{"effort":"low","summary":"auto"},"include":["reasoning.encrypted_content"]}`))
		got.addSSE(t, b, "\n\n", "")
		_, _, b = do(t, srv, responsesCall(`{"model":"m","input":"x"}`))
		got.add(t, "response", b)
		_, _, b = do(t, srv, responsesCall(`{"model":"m","input":"x"}`))
		got.add(t, "error", b)
		assertSubset(t, got, want)
	})
	t.Run("gemini", func(t *testing.T) {
		want := recorded(t, "gemini", "response")
		srv := start(t, emulator.WithReplies(thinking, withID, thinking, emulator.Reply{Error: emulator.ErrorRateLimit}))
		got := shapes{}
		cfg := `{"contents":[],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`
		for range 2 {
			_, _, b := do(t, srv, geminiCall("g", true, cfg))
			got.addSSE(t, b, "\r\n\r\n", "response")
		}
		_, _, b := do(t, srv, geminiCall("g", false, cfg))
		got.add(t, "response", b)
		_, _, b = do(t, srv, geminiCall("g", false, cfg))
		got.add(t, "error", b)
		assertSubset(t, got, want)
	})
}
