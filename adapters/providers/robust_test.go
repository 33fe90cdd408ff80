package providers_test

import (
	"bytes"
	"context"
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
// non-streamed answer of its protocol (testdata/recordings/<api>/<name>).
var recordings = map[string]struct{ api, stream, body string }{
	"anthropic":        {"anthropic", "stream-thinking-signature", "nonstream-thinking-tool-use"},
	"openai":           {"openai-responses", "stream-function-call", "nonstream-function-call"},
	"openai-chat":      {"openai-chat", "stream-text-include-usage", "nonstream-tool-call"},
	"gemini":           {"gemini", "stream-thought-parts", "nonstream-thinking-gemini3"},
	"openaicompat":     {"openai-chat", "vllm-crusoe-stream-text-token-ids", "vllm-nonstream-text"},
	"vertex":           {"gemini", "vertex-stream-functioncall", "vertex-nonstream-functioncall"},
	"vertex-anthropic": {"anthropic", "vertex-stream-text", "vertex-nonstream-text-and-tool-use"},
}

// recorded returns typ's recorded streamed (stream true) or non-streamed
// answer body and its content type.
func recorded(t *testing.T, typ string, stream bool) ([]byte, string) {
	t.Helper()
	r, ok := recordings[typ]
	if !ok {
		t.Fatalf("no recordings listed for builtin %q: add it to recordings", typ)
	}
	if stream {
		return adaptertest.ReadFixture(t, r.api, r.stream, "response.txt"), "text/event-stream"
	}
	return adaptertest.ReadFixture(t, r.api, r.body, "response.json"), "application/json"
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
		full, ctype := recorded(t, b.typ, true)
		cut := full[:bytes.Index(full, []byte("\n\n"))+2] // the first event, then the end
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
