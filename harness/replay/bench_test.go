package replay_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/replay"
)

// BenchmarkPlayerStream replays a 500-event stream, reading it as an SSE
// decoder would: matching, splitting and per-event delivery.
func BenchmarkPlayerStream(b *testing.B) {
	var body strings.Builder
	for i := 0; i < 500; i++ {
		body.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word \"}}\n\n")
	}
	reqBody := `{"model":"claude-sonnet-4-6","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`
	c := cassette.New("bench")
	for i := 0; i < b.N; i++ {
		c.AddInteraction(&cassette.Interaction{
			Request:  cassette.Request{Method: "POST", URL: "https://api.anthropic.com/v1/messages", Body: reqBody},
			Response: cassette.Response{Code: 200, Body: body.String(), Headers: http.Header{"Content-Type": {"text/event-stream"}}},
		})
	}
	p, err := replay.New(c)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", "https://api.anthropic.com/v1/messages", strings.NewReader(reqBody))
		resp, err := p.RoundTrip(req)
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
