package emulator_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/metis-llm/metis/emulator"
)

// BenchmarkStream measures rendering a 4 KiB answer with reasoning and a
// tool call on each streaming endpoint.
func BenchmarkStream(b *testing.B) {
	reply := toolTurn
	reply.Text = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 90)
	reply.Thinking = strings.Repeat("Consider the numbers. ", 40)
	bodies := []string{
		`{"model":"m","max_tokens":1,"messages":[],"stream":true,"thinking":{"type":"enabled"}}`,
		`{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`,
		`{"model":"m","input":"x","stream":true,"reasoning":{"summary":"auto"}}`,
		`{"contents":[],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`,
	}
	names := []string{"anthropic", "openai-chat", "openai-responses", "gemini"}
	srv := emulator.NewUnstartedServer(emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) { return reply, nil }))
	for i, body := range bodies {
		b.Run(names[i], func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, fuzzRequest(i, body))
				n = rec.Body.Len()
			}
			b.SetBytes(int64(n))
		})
	}
}
