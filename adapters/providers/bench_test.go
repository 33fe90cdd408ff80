package providers_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
)

// replayTransport answers every request with a recorded body from memory,
// so that a benchmark measures a whole call — the adapter's call flow,
// encoding, retry plumbing, decoding, assembly — and not the network.
type replayTransport struct {
	body        []byte
	contentType string
}

func (t replayTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {t.contentType}},
		Body:    io.NopCloser(bytes.NewReader(t.body)),
		Request: r,
	}, nil
}

// callCases are recorded answers of each wire format, streamed or whole.
var callCases = []struct {
	name, typ, model, api, fixture, file string
}{
	{"anthropic-stream", "anthropic", "anthropic:claude-sonnet-4", "anthropic", "stream-thinking-signature", "response.txt"},
	{"anthropic-body", "anthropic", "anthropic:claude-sonnet-4", "anthropic", "nonstream-thinking-tool-use", "response.json"},
	{"openai-responses-stream", "openai", "openai:o3-mini", "openai-responses", "stream-reasoning-summary-text", "response.txt"},
	{"openai-chat-stream", "openai", "openai:gpt-4.1", "openai-chat", "stream-reasoning-o3-mini-include-usage", "response.txt"},
	{"gemini-stream", "gemini", "gemini:gemini-2.5-pro", "gemini", "stream-thought-parts", "response.txt"},
	{"vllm-stream", "openaicompat", "vllm:qwen", "openai-chat", "vllm-crusoe-stream-text-token-ids", "response.txt"},
}

// BenchmarkCall makes whole calls through the public API against
// recorded answers served from memory: the same code on every version of
// the runtime, so before/after runs compare like with like.
func BenchmarkCall(b *testing.B) {
	for _, c := range callCases {
		b.Run(c.name, func(b *testing.B) {
			body := adaptertest.ReadFixture(b, c.api, c.fixture, c.file)
			stream := c.file == "response.txt"
			ct := "application/json"
			if stream {
				ct = "text/event-stream"
			}
			cfg := adapters.Config{Name: c.typ, APIKey: "sk-test-FAKE", Transport: replayTransport{body, ct}}
			switch c.typ {
			case "openaicompat":
				cfg.Name, cfg.BaseURL = "vllm", "http://127.0.0.1:1"
			case "openai":
				if c.api == "openai-chat" {
					cfg.Models = map[string]adapters.ModelConfig{c.model: {WireName: "gpt-4.1", Options: map[string]any{"dialect": "chat"}}}
				}
			}
			a, err := providers.Factories()[c.typ](cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			req := &canonical.Request{RequestID: "req_bench", Model: c.model, Messages: []canonical.Message{
				{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
			}}
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			ctx := context.Background()
			for b.Loop() {
				if !stream {
					if _, err := a.Complete(ctx, req); err != nil {
						b.Fatal(err)
					}
					continue
				}
				var last canonical.StreamEvent
				for ev, err := range a.Stream(ctx, req) {
					if err != nil {
						b.Fatal(err)
					}
					last = ev
				}
				if last.Type != canonical.EventMessageComplete {
					b.Fatal("stream did not complete")
				}
			}
		})
	}
}
