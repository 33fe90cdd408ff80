package driver

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
)

// naiveSSE is the usual hand-rolled reader: bufio.Scanner lines (LF only,
// a 64 KiB line limit unless raised) and a strings.Builder per event. It
// is here only as the baseline BenchmarkSSECompare measures against.
func naiveSSE(data []byte) (events int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var sb strings.Builder
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "":
			if sb.Len() > 0 {
				_ = sb.String()
				events++
				sb.Reset()
			}
		case strings.HasPrefix(line, "data:"):
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	return events
}

// BenchmarkSSECompare runs metis's SSEReader and the naive baseline over
// the same inputs in one run, so their speed and allocations sit side by
// side: `go test -run '^$' -bench SSECompare -benchmem ./adapters`.
func BenchmarkSSECompare(b *testing.B) {
	inputs := map[string][]byte{
		"huge-event-8MiB": append(append([]byte("data: "), bytes.Repeat([]byte("0123456789abcdef"), 1<<19)...), "\n\n"...),
	}
	if data, err := os.ReadFile(filepath.Join(adaptertest.FixturesDir(b), "anthropic", "stream-thinking-signature", "response.txt")); err == nil {
		inputs["anthropic-thinking-fixture"] = data
	}
	for name, data := range inputs {
		b.Run(name+"/metis", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewSSEReader(bytes.NewReader(data))
				for {
					if _, err := r.Next(); err != nil {
						break
					}
				}
			}
		})
		b.Run(name+"/naive-scanner", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if naiveSSE(data) == 0 {
					b.Fatal("no events")
				}
			}
		})
	}
}
