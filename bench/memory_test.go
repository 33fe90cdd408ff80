package bench

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
)

// memoryWire is the size of the synthetic stream BenchmarkMemory decodes.
const memoryWire = 50 << 20

// repeatReader produces head, then unit n times, then tail, without ever
// holding more than those three in memory: a 50 MB body that costs the
// benchmark nothing to hold.
type repeatReader struct {
	head, unit, tail []byte
	n, total         int
	cur              []byte
	stage            int
}

func newRepeatReader(head, unit, tail []byte, size int) *repeatReader {
	n := max(1, (size-len(head)-len(tail))/len(unit))
	return &repeatReader{head: head, unit: unit, tail: tail, n: n, total: len(head) + n*len(unit) + len(tail)}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		switch {
		case r.stage == 0:
			r.cur, r.stage = r.head, 1
		case r.stage == 1 && r.n > 0:
			r.cur = r.unit
			r.n--
		case r.stage == 1:
			r.cur, r.stage = r.tail, 2
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// textStream is a dialect's text-only stream as head, a repeated text
// delta, and tail, from its recordings.
func textStream(tb testing.TB, dialect string) (head, unit, tail []byte) {
	tb.Helper()
	switch dialect {
	case "anthropic":
		evs := parseSSE(tb, recording(tb, "anthropic", "stream-thinking-signature", "response.txt"))
		head = writeSSE([]sseEvent{find(tb, evs, `"type":"message_start"`), withInt(tb, find(tb, evs, `"type":"content_block_start"`, `"type":"text"`), "index", 0)})
		unit = writeSSE([]sseEvent{withInt(tb, find(tb, evs, `"type":"text_delta"`), "index", 0)})
		tail = writeSSE([]sseEvent{find(tb, evs, `"type":"content_block_stop"`, `"index":0`), find(tb, evs, `"type":"message_delta"`), find(tb, evs, `"type":"message_stop"`)})
	case "openai-chat":
		evs := parseSSE(tb, recording(tb, "openai-chat", "stream-text-include-usage", "response.txt"))
		head = writeSSE(evs[:1])
		unit = writeSSE([]sseEvent{find(tb, evs, `"delta":{"content":"`)})
		tail = writeSSE(evs[len(evs)-3:])
	case "openai-responses":
		evs := parseSSE(tb, recording(tb, "openai-responses", "stream-reasoning-summary-text", "response.txt"))
		first, last := -1, -1
		for i, ev := range evs {
			if bytes.Contains(ev.data, []byte(`"type":"response.output_text.delta"`)) {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		head, unit, tail = writeSSE(evs[:first]), writeSSE(evs[first:first+1]), writeSSE(evs[last+1:])
	case "gemini":
		evs := parseSSE(tb, recording(tb, "gemini", "stream-thought-parts", "response.txt"))
		var text sseEvent
		for _, ev := range evs {
			if !bytes.Contains(ev.data, []byte(`"thought"`)) && !bytes.Contains(ev.data, []byte(`"finishReason"`)) {
				text = ev
			}
		}
		head, unit, tail = nil, writeSSE([]sseEvent{text}), writeSSE(evs[len(evs)-1:])
	}
	return head, unit, tail
}

// BenchmarkMemory streams a 50 MB text stream of each dialect through
// metis's public Adapter.Stream. A decoder that buffered the body would
// allocate at least its 50 MB per op; B/op staying near the assembled
// text's size (assembled-B/op: the message metis must build) shows it
// holds only the current event and the message.
func BenchmarkMemory(b *testing.B) {
	for _, d := range dialects {
		b.Run("api="+d.name+"/impl=metis", func(b *testing.B) {
			head, unit, tail := textStream(b, d.name)
			var body *repeatReader
			cfg := adapters.Config{Name: d.metis.typ, APIKey: "sk-test-FAKE", Transport: memTransport{func() io.Reader {
				body = newRepeatReader(head, unit, tail, memoryWire)
				return body
			}, "text/event-stream"}}
			if d.metis.options != nil {
				cfg.Models = map[string]adapters.ModelConfig{d.metis.model: {WireName: "gpt-4.1", Options: d.metis.options}}
			}
			a, err := providers.Factories()[d.metis.typ](cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			req := &canonical.Request{Model: d.metis.model, Messages: []canonical.Message{
				{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
			}}
			assembled := 0
			b.ReportAllocs()
			for b.Loop() {
				assembled = 0
				for ev, err := range a.Stream(context.Background(), req) {
					if err != nil {
						b.Fatal(err)
					}
					if ev.Type == canonical.EventMessageComplete {
						for _, bl := range ev.Response.Content {
							if t, ok := bl.(canonical.TextBlock); ok {
								assembled += len(t.Text)
							}
						}
					}
				}
			}
			if assembled == 0 {
				b.Fatal("no text assembled")
			}
			b.SetBytes(int64(body.total))
			b.ReportMetric(float64(assembled), "assembled-B/op")
			b.ReportMetric(float64(body.total), "wire-B/op")
		})
	}
}
