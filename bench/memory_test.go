package bench

import (
	"bytes"
	"context"
	"io"
	"runtime"
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

// liveHeapReader reads r and, every `every` bytes, collects garbage and
// records the live heap: its peak over a stream, less the live heap
// before the stream (base), is the most the decoder held at once.
type liveHeapReader struct {
	r           io.Reader
	every, left int
	base, peak  uint64
}

func newLiveHeapReader(r io.Reader, every int) *liveHeapReader {
	l := &liveHeapReader{r: r, every: every, left: every}
	l.base = liveHeap()
	return l
}

func (l *liveHeapReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if l.left -= n; l.left <= 0 || err != nil {
		l.left = l.every
		l.peak = max(l.peak, liveHeap())
	}
	return n, err
}

// held is the peak live heap above the base, in bytes.
func (l *liveHeapReader) held() uint64 {
	if l.peak < l.base {
		return 0
	}
	return l.peak - l.base
}

// liveHeap collects garbage and returns the bytes of live heap objects.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// memoryRun streams a wire-byte text stream of d through metis's public
// Adapter.Stream once and returns the assembled text's length and the
// peak live heap above the one before the call (sampled every MiB).
type memoryRun struct {
	a   adapters.Adapter
	req *canonical.Request
	// body is the last call's body.
	body *liveHeapReader
	wire int
}

func newMemoryRun(tb testing.TB, d *dialect, wire int) *memoryRun {
	tb.Helper()
	head, unit, tail := textStream(tb, d.name)
	m := &memoryRun{}
	cfg := adapters.Config{Name: d.metis.typ, APIKey: "sk-test-FAKE", Transport: memTransport{func() io.Reader {
		r := newRepeatReader(head, unit, tail, wire)
		m.wire = r.total
		m.body = newLiveHeapReader(r, 1<<20)
		return m.body
	}, "text/event-stream"}}
	if d.metis.options != nil {
		cfg.Models = map[string]adapters.ModelConfig{d.metis.model: {WireName: "gpt-4.1", Options: d.metis.options}}
	}
	a, err := providers.Factories()[d.metis.typ](cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	m.a = a
	m.req = &canonical.Request{Model: d.metis.model, Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}}
	return m
}

// stream runs one call and returns the assembled text's length.
func (m *memoryRun) stream(tb testing.TB) int {
	assembled := 0
	for ev, err := range m.a.Stream(context.Background(), m.req) {
		if err != nil {
			tb.Fatal(err)
		}
		if ev.Type == canonical.EventMessageComplete {
			for _, bl := range ev.Response.Content {
				if t, ok := bl.(canonical.TextBlock); ok {
					assembled += len(t.Text)
				}
			}
		}
	}
	if assembled == 0 {
		tb.Fatal("no text assembled")
	}
	return assembled
}

// BenchmarkMemory streams a 50 MB text stream of each dialect through
// metis's public Adapter.Stream. It reports the bytes allocated (B/op),
// the wire and assembled sizes, and the peak live heap during the call
// (peak-live-B/op, sampled after a collection every MiB read): a decoder
// that buffered the body would hold at least its 50 MB at once; metis
// holds the message it assembles (a string builder's doubling makes that
// up to twice the text) and the current event.
func BenchmarkMemory(b *testing.B) {
	for _, d := range dialects {
		b.Run("api="+d.name+"/impl=metis", func(b *testing.B) {
			m := newMemoryRun(b, d, memoryWire)
			assembled := 0
			var peak uint64
			b.ReportAllocs()
			for b.Loop() {
				assembled = m.stream(b)
				peak = max(peak, m.body.held())
			}
			b.SetBytes(int64(m.wire))
			b.ReportMetric(float64(assembled), "assembled-B/op")
			b.ReportMetric(float64(m.wire), "wire-B/op")
			b.ReportMetric(float64(peak), "peak-live-B/op")
		})
	}
}

// TestMemoryBounded checks, for every dialect, that a 50 MB stream never
// has more live heap than twice the assembled text plus 4 MiB (the
// string builder's doubling and the current event), far below the wire
// size a whole-body buffer would hold.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 50 MB per dialect")
	}
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			m := newMemoryRun(t, d, memoryWire)
			assembled := m.stream(t)
			held, bound := m.body.held(), uint64(2*assembled+4<<20)
			t.Logf("wire %d B, assembled %d B, peak live heap %d B", m.wire, assembled, held)
			if held > bound {
				t.Errorf("peak live heap %d B over a %d B stream exceeds twice the assembled %d B plus 4 MiB (%d B): the decoder holds more than the message and its current event", held, m.wire, assembled, bound)
			}
			if held >= uint64(m.wire)/2 {
				t.Errorf("peak live heap %d B is at least half the %d B wire: whole-body buffering", held, m.wire)
			}
		})
	}
}
