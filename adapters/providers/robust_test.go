package providers_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// The tests in this file hold every built-in adapter to the hardening
// rules (#15): what reaches the caller when the server, the network or
// the caller's own code misbehaves. They run each builtin against real
// recorded answers of its protocol.

// recordings names, per builtin, a recorded streamed and a recorded
// non-streamed answer of its protocol (testdata/recordings/<api>/<name>);
// frames marks a stream of AWS event-stream frames (response.bin) rather
// than server-sent events.
var recordings = map[string]struct {
	api, stream, body string
	frames            bool
}{
	"anthropic":        {"anthropic", "stream-thinking-signature", "nonstream-thinking-tool-use", false},
	"openai":           {"openai-responses", "stream-function-call", "nonstream-function-call", false},
	"openai-chat":      {"openai-chat", "stream-text-include-usage", "nonstream-tool-call", false},
	"gemini":           {"gemini", "stream-thought-parts", "nonstream-thinking-gemini3", false},
	"openaicompat":     {"openai-chat", "vllm-crusoe-stream-text-token-ids", "vllm-nonstream-text", false},
	"vertex":           {"gemini", "vertex-stream-functioncall", "vertex-nonstream-functioncall", false},
	"vertex-anthropic": {"anthropic", "vertex-stream-text", "vertex-nonstream-text-and-tool-use", false},
	"azure":            {"openai-responses", "azure-stream-function-call", "azure-nonstream-function-call", false},
	"azure-chat":       {"openai-chat", "azure-stream-text-deployments-path-2024", "azure-nonstream-tool-call", false},
	"bedrock":          {"bedrock-anthropic", "bedrock-invoke-stream-text", "bedrock-invoke-nonstream-tool-use", true},
}

// recorded returns typ's recorded streamed (stream true) or non-streamed
// answer body, its content type, and for a stream the length of its
// first event.
func recorded(t *testing.T, typ string, stream bool) ([]byte, string, int) {
	t.Helper()
	r, ok := recordings[typ]
	if !ok {
		t.Fatalf("no recordings listed for builtin %q: add it to recordings", typ)
	}
	switch {
	case !stream:
		return adaptertest.ReadFixture(t, r.api, r.body, "response.json"), "application/json", 0
	case r.frames:
		body := adaptertest.ReadFixture(t, r.api, r.stream, "response.bin")
		return body, "application/vnd.amazon.eventstream", int(binary.BigEndian.Uint32(body)) // a frame starts with its total length
	}
	body := adaptertest.ReadFixture(t, r.api, r.stream, "response.txt")
	return body, "text/event-stream", bytes.Index(body, []byte("\n\n")) + 2
}

// serve starts a server answering every request with h.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// answer is a handler answering 200 with body as ctype.
func answer(body []byte, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}
}

// TestLoopBodyPanicSurfaces: a panic in the caller's range-loop body
// reaches the caller as that panic, on every adapter's Stream, wherever
// it strikes — at the first events, at message.complete, at the error
// that follows a broken stream — not as Go's "range function continued
// iteration after loop body panic", which is what an iterator that
// recovers the panic and keeps yielding produces.
func TestLoopBodyPanicSurfaces(t *testing.T) {
	type loopPanic struct{ at string }
	for _, b := range builtins {
		full, ctype, first := recorded(t, b.typ, true)
		cut := full[:first] // the first event, then the end
		for _, tc := range []struct {
			at   string
			body []byte
			hit  func(n int, ev canonical.StreamEvent, err error) bool
		}{
			{"first event", full, func(n int, _ canonical.StreamEvent, _ error) bool { return n == 0 }},
			{"second event", full, func(n int, _ canonical.StreamEvent, _ error) bool { return n == 1 }},
			{"message.complete", full, func(_ int, ev canonical.StreamEvent, _ error) bool { return ev.Type == canonical.EventMessageComplete }},
			{"the error after a cut", cut, func(_ int, _ canonical.StreamEvent, err error) bool { return err != nil }},
		} {
			t.Run(b.typ+"/"+tc.at, func(t *testing.T) {
				srv := serve(t, answer(tc.body, ctype))
				a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) { c.MaxRetries = 0 })
				want := loopPanic{tc.at}
				hit := false
				got := func() (r any) {
					defer func() { r = recover() }()
					n := 0
					for ev, err := range a.Stream(context.Background(), userRequest(b.model)) {
						if tc.hit(n, ev, err) {
							hit = true
							panic(want)
						}
						n++
					}
					return nil
				}()
				if !hit {
					t.Fatal("the stream never reached the point to panic at")
				}
				if got != want {
					t.Fatalf("recovered %v (%T), want the loop body's own panic %v", got, got, want)
				}
			})
		}
	}
}
