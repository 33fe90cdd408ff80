package openai

import (
	"bytes"
	"io"
	"testing"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// benchDecoder decodes a recorded stream per iteration through an
// Assembler whose consumer discards events, as the runtime would.
func benchDecoder(b *testing.B, dec func(io.Reader, *driver.Assembler) error, body []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	discard := func(canonical.StreamEvent, error) bool { return true }
	for b.Loop() {
		a := driver.NewAssembler(discard, "openai", "openai:bench", "req_bench", nil)
		if err := dec(bytes.NewReader(body), a); err != nil {
			b.Fatal(err)
		}
		if !a.Finished() {
			b.Fatal("stream did not finish")
		}
	}
}

// BenchmarkResponsesStream decodes a 190 KB Responses stream of 675
// events (reasoning summary deltas, then text deltas).
func BenchmarkResponsesStream(b *testing.B) {
	body := fixture(b, "openai-responses", "stream-reasoning-summary-text", "response.txt")
	benchDecoder(b, responsesDialect{provider: "openai", reasoning: true}.DecodeStream, body)
}

// BenchmarkChatStream decodes a Chat Completions stream of 130 chunks.
func BenchmarkChatStream(b *testing.B) {
	body := fixture(b, "openai-chat", "stream-reasoning-o3-mini-include-usage", "response.txt")
	benchDecoder(b, ChatDialect{Provider: "openai"}.DecodeStream, body)
}

// BenchmarkChatStreamTools decodes a streamed tool call.
func BenchmarkChatStreamTools(b *testing.B) {
	body := fixture(b, "openai-chat", "stream-tool-call-include-usage", "response.txt")
	benchDecoder(b, ChatDialect{Provider: "openai"}.DecodeStream, body)
}
