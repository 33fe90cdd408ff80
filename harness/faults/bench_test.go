package faults_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/harness/faults"
)

// fixture reads a recorded provider stream from ../shared/fixtures beside
// the module root, skipping when it is absent.
func fixture(b *testing.B, rel string) []byte {
	b.Helper()
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			b.Skip("go.mod not found")
		}
		dir = parent
	}
	data, err := os.ReadFile(filepath.Join(dir, "..", "shared", "fixtures", rel))
	if err != nil {
		b.Skipf("fixture %s not available: %v", rel, err)
	}
	return data
}

// BenchmarkMalformedPassThrough measures a stream fault handing a recorded
// Anthropic stream on event by event (the malformed chunk goes after the
// last event, so every event is split and passed).
func BenchmarkMalformedPassThrough(b *testing.B) {
	body := fixture(b, "anthropic/stream-thinking-signature/response.txt")
	next := sse(string(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	buf := make([]byte, 32<<10)
	for b.Loop() {
		in := faults.Transport(next, faults.Fault{Kind: faults.KindMalformed, AfterEvents: 1 << 20})
		req := newRequest(b, context.Background(), anthropicURL)
		resp, err := in.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := resp.Body.Read(buf); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		resp.Body.Close()
	}
}
