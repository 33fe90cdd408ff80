package openaicompat

import (
	"testing"

	"github.com/metis-llm/metis/canonical"
)

// benchStream decodes a recorded stream per iteration as a call of this
// adapter does — the dialect's decoder, the unknown-finish guard and
// finishStream — with a consumer that discards the events.
func benchStream(b *testing.B, body []byte) {
	c := fuzzCall(b, true)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var last canonical.StreamEvent
		for ev, err := range streamEvents(c, body) {
			if err != nil {
				b.Fatal(err)
			}
			last = ev
		}
		if last.Type != canonical.EventMessageComplete {
			b.Fatal("stream did not complete")
		}
	}
}

// BenchmarkStreamText decodes OpenAI's recorded 130-chunk text stream.
func BenchmarkStreamText(b *testing.B) {
	benchStream(b, fixture(b, "openai-chat", "stream-reasoning-o3-mini-include-usage", "response.txt"))
}

// BenchmarkStreamToolCall decodes a recorded streamed tool call, whose
// arguments finalize checks against the tool's schema.
func BenchmarkStreamToolCall(b *testing.B) {
	body := fixture(b, "openai-chat", "stream-tool-call-include-usage", "response.txt")
	c := fuzzCall(b, true)
	c.req.Tools = []canonical.ToolDefinition{tool("get_capital", `{"type":"object","properties":{"country":{"type":"string"}},"required":["country"]}`)}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		for _, err := range streamEvents(c, body) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkStreamReasoning decodes a vLLM-style stream with
// reasoning_content deltas (hand-written, testdata).
func BenchmarkStreamReasoning(b *testing.B) {
	benchStream(b, readTestdata(b, "vllm-reasoning.sse"))
}
