package faults_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/harness/faults"
)

// fixture reads a real provider stream vendored in testdata/recordings
// (rel is api/name/file).
func fixture(b *testing.B, rel string) []byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(adaptertest.FixturesDir(b), rel))
	if err != nil {
		b.Fatal(err)
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
