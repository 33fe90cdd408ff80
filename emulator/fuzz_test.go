package emulator_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
)

// fuzzRoutes are the model endpoints FuzzServeHTTP aims at.
var fuzzRoutes = []struct{ path, sep string }{
	{"/v1/messages", "\n\n"},
	{"/v1/chat/completions", "\n\n"},
	{"/v1/responses", "\n\n"},
	{"/v1beta/models/g:streamGenerateContent?alt=sse", "\r\n\r\n"},
	{"/v1beta/models/g:generateContent", ""},
}

// fuzzRequest builds a request to route i carrying every provider's key.
func fuzzRequest(i int, body string) *http.Request {
	r := httptest.NewRequest("POST", fuzzRoutes[i].path, strings.NewReader(body))
	r.Header.Set("x-api-key", testKey)
	r.Header.Set("anthropic-version", anthropicVer)
	r.Header.Set("Authorization", "Bearer "+testKey)
	r.Header.Set("x-goog-api-key", testGoogKey)
	return r
}

// checkBody fails unless body is JSON or an SSE stream of JSON events.
func checkBody(t *testing.T, rec *httptest.ResponseRecorder, sep string) []string {
	body := rec.Body.String()
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		require.True(t, json.Valid([]byte(body)), "status %d body not JSON: %q", rec.Code, body)
		return nil
	}
	require.Equal(t, 200, rec.Code)
	var datas []string
	for _, block := range strings.Split(strings.TrimSuffix(body, sep), sep) {
		for _, line := range strings.Split(block, sep[:len(sep)/2]) {
			if data, ok := strings.CutPrefix(line, "data: "); ok && data != "[DONE]" {
				require.True(t, json.Valid([]byte(data)), "event not JSON: %q", data)
				datas = append(datas, data)
			}
		}
	}
	return datas
}

// FuzzServeHTTP sends arbitrary bodies to every model endpoint: the
// emulator must answer each with JSON or a stream of JSON events, never
// panic.
func FuzzServeHTTP(f *testing.F) {
	f.Add(0, `{"model":"m","max_tokens":1,"messages":[],"stream":true,"thinking":{"type":"enabled"}}`)
	f.Add(1, `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`)
	f.Add(2, `{"model":"m","input":"x","stream":true,"reasoning":{"summary":"auto"},"include":["reasoning.encrypted_content"]}`)
	f.Add(3, `{"contents":[],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`)
	f.Add(4, `{"contents":[{"parts":[{"text":"hi"}]}]}`)
	f.Add(2, `{"model":null,"reasoning":[]}`)
	f.Add(0, `{"model":1}`)
	f.Add(1, "\x00\xff")
	srv := emulator.NewUnstartedServer(emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) { return toolTurn, nil }))
	f.Fuzz(func(t *testing.T, route int, body string) {
		i := (route%len(fuzzRoutes) + len(fuzzRoutes)) % len(fuzzRoutes)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, fuzzRequest(i, body))
		checkBody(t, rec, fuzzRoutes[i].sep)
	})
}

// FuzzReplyText scripts arbitrary text and reasoning: every event must
// stay valid JSON, and the text deltas must add up to the text as JSON
// encodes it (invalid UTF-8 becoming U+FFFD byte by byte).
func FuzzReplyText(f *testing.F) {
	f.Add("Hello, world!", "thinking…", 12)
	f.Add("héllo\n\n**x**\n\nwörld", "**A**\n\nb\n\n**C**", 1)
	f.Add("a\xffb\xc3", "\xe2\x82", 2)
	f.Add("", "", 5)
	f.Fuzz(func(t *testing.T, text, thinking string, chunk int) {
		reply := emulator.Reply{Text: text, Thinking: thinking}
		srv := emulator.NewUnstartedServer(emulator.WithChunkSize(chunk%40), emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) { return reply, nil }))
		var want string
		require.NoError(t, json.Unmarshal(mustJSON(t, text), &want))
		bodies := []string{
			`{"model":"m","max_tokens":1,"messages":[],"stream":true,"thinking":{"type":"enabled"}}`,
			`{"model":"m","messages":[],"stream":true}`,
			`{"model":"m","input":"x","stream":true,"reasoning":{"summary":"auto"}}`,
			`{"contents":[],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`,
		}
		for i, body := range bodies {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, fuzzRequest(i, body))
			var got strings.Builder
			for _, data := range checkBody(t, rec, fuzzRoutes[i].sep) {
				got.WriteString(textDelta(t, i, data))
			}
			require.Equal(t, want, got.String(), "route %s", fuzzRoutes[i].path)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// textDelta returns the answer text an event of route i adds.
func textDelta(t *testing.T, i int, data string) string {
	var ev struct {
		Type  string `json:"type"`
		Delta json.RawMessage
		// chat
		Choices []struct {
			Delta struct {
				Content *string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
		// gemini
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text    string `json:"text"`
					Thought bool   `json:"thought"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &ev))
	switch i {
	case 0:
		var d struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if ev.Type == "content_block_delta" {
			require.NoError(t, json.Unmarshal(ev.Delta, &d))
			if d.Type == "text_delta" {
				return d.Text
			}
		}
	case 1:
		if len(ev.Choices) > 0 && ev.Choices[0].Delta.Content != nil {
			return *ev.Choices[0].Delta.Content
		}
	case 2:
		var s string
		if ev.Type == "response.output_text.delta" {
			require.NoError(t, json.Unmarshal(ev.Delta, &s))
			return s
		}
	case 3:
		var b strings.Builder
		for _, p := range ev.Candidates[0].Content.Parts {
			if !p.Thought {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}
