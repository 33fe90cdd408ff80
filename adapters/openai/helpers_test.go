package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// fixture reads one file of a fixture folder, skipping when absent.
func fixture(tb testing.TB, api, name, file string) []byte {
	tb.Helper()
	return adaptertest.ReadFixture(tb, api, name, file)
}

// fixtureStatus reads meta.json's status.
func fixtureStatus(tb testing.TB, api, name string) int {
	var meta struct {
		Status int `json:"status"`
	}
	require.NoError(tb, json.Unmarshal(fixture(tb, api, name, "meta.json"), &meta))
	return meta.Status
}

// chunksToSSE turns a response.chunks.jsonl (framing stripped) back into
// a Responses SSE body, as its SOURCE.txt describes.
func chunksToSSE(tb testing.TB, jsonl []byte) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(jsonl))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(tb, json.Unmarshal(line, &head))
		out.WriteString("event: " + head.Type + "\ndata: ")
		out.Write(line)
		out.WriteString("\n\n")
	}
	require.NoError(tb, sc.Err())
	return out.Bytes()
}

// decodeResult is what a decoder produced.
type decodeResult struct {
	events []canonical.StreamEvent
	resp   *canonical.Response
	err    error
}

// runDecoder feeds body to a stream decoder through an Assembler whose
// events are collected, as the runtime would.
func runDecoder(dec func(io.Reader, *driver.Assembler) error, body []byte, ids canonical.ToolIDMap) decodeResult {
	var r decodeResult
	a := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		r.events = append(r.events, ev)
		return true
	}, "openai", "openai:test-model", "req_test", ids)
	r.err = dec(bytes.NewReader(body), a)
	if a.Finished() {
		r.resp = a.Response()
	}
	return r
}

// runBody feeds a body to a body decoder with a nil-yield Assembler.
func runBody(dec func([]byte, *driver.Assembler) error, body []byte, ids canonical.ToolIDMap) decodeResult {
	var r decodeResult
	a := driver.NewAssembler(nil, "openai", "openai:test-model", "req_test", ids)
	r.err = dec(body, a)
	if a.Finished() {
		r.resp = a.Response()
	}
	return r
}

// logRecorder is an slog handler that keeps records for assertions.
type logRecorder struct {
	mu      sync.Mutex
	records []map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, m)
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) warnings() []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, r := range h.records {
		if r["level"] == "WARN" {
			out = append(out, r)
		}
	}
	return out
}

// jsonPath digs a value out of decoded JSON: keys for objects, ints for
// arrays.
func jsonPath(tb testing.TB, v any, path ...any) any {
	tb.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.Truef(tb, ok, "at %q: not an object", k)
			v = m[k]
		case int:
			a, ok := v.([]any)
			require.Truef(tb, ok, "at %d: not an array", k)
			require.Greaterf(tb, len(a), k, "index %d out of range", k)
			v = a[k]
		}
	}
	return v
}

func decodeJSON(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	require.NoError(tb, json.Unmarshal(b, &m), string(b))
	return m
}

// sseEventData returns the data of the first SSE event of type t whose
// data contains substr, read with a plain line scan independent of the
// code under test.
func sseEventData(tb testing.TB, body []byte, t, substr string) []byte {
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || !strings.Contains(data, `"type":"`+t+`"`) || !strings.Contains(data, substr) {
			continue
		}
		return []byte(data)
	}
	tb.Fatalf("no %s event containing %q", t, substr)
	return nil
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
	return b
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// streamFindings checks a decoder's events with streamcheck. A decoder
// that did not finish (the stream ended in an error) emits no
// message.complete, so its events are checked as partial, with every
// started tool still required to have ended.
func streamFindings(r decodeResult) []streamcheck.Finding {
	if r.resp != nil {
		return streamcheck.Check(r.events)
	}
	f := streamcheck.Check(r.events, streamcheck.Partial())
	starts := len(adaptertest.EventsOf(r.events, canonical.EventToolUseStart))
	ends := len(adaptertest.EventsOf(r.events, canonical.EventToolUseEnd))
	if starts != ends {
		f = append(f, streamcheck.Finding{Rule: streamcheck.RuleToolLifecycle, Index: len(r.events),
			Message: fmt.Sprintf("%d tool.use_start but %d tool.use_end", starts, ends)})
	}
	return f
}
