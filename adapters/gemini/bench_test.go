package gemini

import (
	"bytes"
	"testing"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// BenchmarkDecodeStream decodes recorded streams: a long text answer with
// thought parts and a large signature, and a signed function call.
func BenchmarkDecodeStream(b *testing.B) {
	for _, name := range []string{"stream-thought-parts", "stream-functioncall-with-id-thinking"} {
		body := readFixture(b, name, "response.txt")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			events := 0
			for b.Loop() {
				a := driver.NewAssembler(func(canonical.StreamEvent, error) bool { events++; return true }, DefaultName, testModel, "req_bench", nil)
				if err := decodeStream(bytes.NewReader(body), a); err != nil {
					b.Fatal(err)
				}
				if !a.Finished() {
					b.Fatal("not finished")
				}
			}
		})
	}
}
