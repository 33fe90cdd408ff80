package anthropic

import (
	"bytes"
	"testing"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// BenchmarkDecodeStream decodes the recorded streams into canonical
// events, as a live call does.
func BenchmarkDecodeStream(b *testing.B) {
	for _, name := range []string{"stream-thinking-signature", "stream-parallel-tool-use-input-json-delta", "stream-server-tool-search-then-tool-use"} {
		b.Run(name, func(b *testing.B) {
			body := readFixture(b, name, "response.txt")
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				a := driver.NewAssembler(func(canonical.StreamEvent, error) bool { return true }, "anthropic", testModel, "req_bench", nil)
				if err := newDecoder("anthropic", false).decodeStream(bytes.NewReader(body), a); err != nil || !a.Finished() {
					b.Fatalf("decode: %v (finished %v)", err, a.Finished())
				}
			}
		})
	}
}

// BenchmarkDecodeBody decodes a recorded non-streamed answer.
func BenchmarkDecodeBody(b *testing.B) {
	body := readFixture(b, "nonstream-thinking-tool-use", "response.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		a := driver.NewAssembler(nil, "anthropic", testModel, "req_bench", nil)
		if err := newDecoder("anthropic", false).decodeBody(body, a); err != nil {
			b.Fatal(err)
		}
	}
}
