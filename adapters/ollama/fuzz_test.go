package ollama

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// FuzzDecodeStream feeds arbitrary bodies to the stream decoder, whole
// and a byte at a time: it must never panic, every run must keep the
// stream invariants, end with one message.complete, and fail only with
// an AdapterError; the non-streamed decoder must not panic either.
func FuzzDecodeStream(f *testing.F) {
	f.Add([]byte(streamLines))
	f.Add([]byte("{\"error\":\"boom\"}\n"))
	f.Add([]byte("{\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n{\"message\":{\"ro"))
	f.Add([]byte(`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]},"done":true,"done_reason":"length"}`))
	var logs bytes.Buffer
	a := newTestAdapter(f, "http://127.0.0.1:1", &logs)
	a.p.learned["qwen3"] = shown{capabilities: []string{"tools", "thinking"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := &canonical.Request{Model: testModel, Messages: []canonical.Message{userText("hi")}, Tools: []canonical.ToolDefinition{weatherTool}}
		for _, r := range []io.Reader{bytes.NewReader(body), iotest.OneByteReader(bytes.NewReader(body))} {
			evs, err := adaptertest.Collect(a.StreamBody(req, r))
			var ae *canonical.AdapterError
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("error %T %v is not an AdapterError", err, err)
			}
			if len(evs) == 0 {
				continue // refused before the first event
			}
			if v := streamcheck.Check(evs); len(v) > 0 {
				t.Fatalf("invariants: %v", v)
			}
			if evs[len(evs)-1].Type != canonical.EventMessageComplete {
				t.Fatalf("last event %s, want message.complete", evs[len(evs)-1].Type)
			}
		}
		a.CompleteBody(req, body) //nolint:errcheck // must not panic
		logs.Reset()
	})
}
