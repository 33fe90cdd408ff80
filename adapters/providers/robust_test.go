package providers_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/wire"
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
	"bedrock-converse": {"bedrock-converse", "bedrock-converse-stream-tool-use", "bedrock-converse-nonstream-tool-use", true},
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

// serveCounting is serve, counting the requests h answers.
func serveCounting(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}), &n
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

// wireAPI is the error dialect of each builtin, for internal/wire; ""
// for a builtin whose errors internal/wire does not render.
var wireAPI = map[string]wire.API{
	"anthropic": wire.Anthropic, "vertex-anthropic": wire.Anthropic,
	"openai": wire.OpenAIResponses, "azure": wire.OpenAIResponses,
	"openai-chat": wire.OpenAIChat, "openaicompat": wire.OpenAIChat, "azure-chat": wire.OpenAIChat,
	"gemini": wire.Gemini, "vertex": wire.Gemini,
}

// TestNotAResponse: a 200 whose body is not a response is an error on
// every adapter, streamed and not — never an empty end_turn, never a
// network error that loses what the server said. A body that states an
// error is that error (here a server error in the provider's own shape);
// anything else is server_error/invalid_response with the start of the
// body in the message. Nothing is retried: an answer arrived.
func TestNotAResponse(t *testing.T) {
	const page = "<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
	type want struct {
		class    canonical.ErrorClass
		code     string
		contains string
	}
	invalid := func(contains string) want { return want{canonical.ErrServer, canonical.CodeInvalidResponse, contains} }
	for _, b := range builtins {
		// Bedrock states an error the AWS way.
		stated := []byte(`{"__type":"InternalServerException","message":"upstream failed"}`)
		statedWant := want{canonical.ErrServer, "", "upstream failed"}
		if api, ok := wireAPI[b.typ]; ok {
			e := wire.ErrorFor(api, wire.Server, "m")
			e.Message = "upstream failed"
			stated = e.Body(api)
			statedWant = want{canonical.ErrServer, "", "upstream failed"}
		}
		for _, tc := range []struct {
			name, ctype string
			body        []byte
			stream      bool
			want        want
		}{
			{"HTML page", "text/html; charset=utf-8", []byte(page), false, invalid("502 Bad Gateway")},
			{"HTML page as text/plain", "text/plain", []byte(page), false, invalid("502 Bad Gateway")},
			{"error object", "application/json", stated, false, statedWant},
			{"null", "application/json", []byte("null"), false, invalid("JSON null")},
			{"empty object", "application/json", []byte("{}"), false, invalid("{}")},
			{"empty", "application/json", nil, false, invalid("empty body")},
			{"plain text", "text/plain", []byte("Service temporarily unavailable"), false, invalid("Service temporarily unavailable")},
			{"HTML page", "text/html", []byte(page), true, invalid("502 Bad Gateway")},
			{"HTML page as an event stream", "text/event-stream", []byte(page), true, invalid("502 Bad Gateway")},
			{"error object", "application/json", stated, true, statedWant},
			{"error object as an event stream", "text/event-stream", stated, true, statedWant},
			{"null", "application/json", []byte("null"), true, invalid("null")},
			{"plain text", "text/plain; charset=utf-8", []byte("upstream connect error or disconnect/reset before headers. reset reason: overflow"), true, invalid("upstream connect error")},
			{"plain text naming a key", "text/plain", []byte("key " + plainKey + " is not allowed"), true, invalid("is not allowed")},
			{"a long plain text", "text/plain", []byte("Service temporarily unavailable. " + strings.Repeat("retry later. ", 10000)), true, invalid("Service temporarily unavailable")},
			{"an image", "image/png", []byte("\x89PNG\r\n\x1a\n"), true, invalid("image/png")},
			{"a whole body instead of a stream", "application/json", mustRecorded(t, b.typ, false), true, invalid("not an event stream")},
		} {
			mode := "complete"
			if tc.stream {
				mode = "stream"
			}
			t.Run(b.typ+"/"+mode+"/"+tc.name, func(t *testing.T) {
				srv, requests := serveCounting(t, func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", tc.ctype)
					w.Write(tc.body)
				})
				a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) { c.MaxRetries = 2 })
				var (
					err error
					evs []canonical.StreamEvent
				)
				if tc.stream {
					evs, err = adaptertest.Collect(a.Stream(context.Background(), userRequest(b.model)))
				} else {
					var resp *canonical.Response
					resp, err = a.Complete(context.Background(), userRequest(b.model))
					if resp != nil {
						t.Fatalf("a response (stop %s) from %q", resp.StopReason, tc.body)
					}
				}
				var ae *canonical.AdapterError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v (%T), want an AdapterError", err, err)
				}
				got := want{ae.Class, ae.Code, tc.want.contains}
				if !strings.Contains(ae.Error(), tc.want.contains) {
					got.contains = ae.Error()
				}
				if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
					t.Errorf("(-want +got):\n%s\nerror: %v", diff, err)
				}
				if ae.Status != http.StatusOK {
					t.Errorf("status %d, want 200", ae.Status)
				}
				if text := ae.Error(); strings.Contains(text, plainKey) || len(text) > 1024 {
					t.Errorf("error text of %d bytes, with the key or longer than 1 KiB: %.2000s", len(text), text)
				}
				if len(evs) > 0 {
					t.Errorf("events before the error: %+v", evs)
				}
				if requests.Load() != 1 {
					t.Errorf("%d requests: a 2xx answer is not retried", requests.Load())
				}
			})
		}
	}
}

// plainKey is a credential-shaped string in a body that is no response:
// the error quoting the body redacts it.
const plainKey = "sk-proj-" + "Zq9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfEdcbaQW12"

func mustRecorded(t *testing.T, typ string, stream bool) []byte {
	b, _, _ := recorded(t, typ, stream)
	return b
}

// cutOff answers 200 with the first half of body and closes the
// connection: the response says how long the body is, so the client
// meets an unexpected EOF, as when a connection drops mid-body.
func cutOff(w http.ResponseWriter, body []byte, ctype string) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ctype, len(body))
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

// TestCutOffBody: a body the connection cuts off is not a complete body
// that fails to decode. Non-streamed, it is network/stream_truncated and
// retried under the retry rules (a retry that gets the whole body
// succeeds); streamed, the message completes with stop reason error and
// the content so far, then the same error, without a retry.
func TestCutOffBody(t *testing.T) {
	for _, b := range builtins {
		body, ctype, _ := recorded(t, b.typ, false)
		t.Run(b.typ+"/complete, then whole", func(t *testing.T) {
			var requests atomic.Int32
			srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				if requests.Add(1) == 1 {
					cutOff(w, body, ctype)
					return
				}
				answer(body, ctype)(w, nil)
			})
			var attempts []adapters.Attempt
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) {
				c.MaxRetries = 2
				c.OnAttempt = func(at adapters.Attempt) { attempts = append(attempts, at) }
			})
			resp, err := a.Complete(context.Background(), userRequest(b.model))
			if err != nil {
				t.Fatalf("a retry got the whole body, yet: %v", err)
			}
			if resp.StopReason == canonical.StopError {
				t.Errorf("stop reason %s", resp.StopReason)
			}
			if requests.Load() != 2 || len(attempts) != 2 || canonical.CodeOf(attempts[0].Err) != canonical.CodeStreamTruncated {
				t.Errorf("%d requests, attempts %+v; want the cut one retried", requests.Load(), attempts)
			}
		})
		t.Run(b.typ+"/complete, always cut", func(t *testing.T) {
			srv, requests := serveCounting(t, func(w http.ResponseWriter, _ *http.Request) {
				cutOff(w, body, ctype)
			})
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) { c.MaxRetries = 2 })
			_, err := a.Complete(context.Background(), userRequest(b.model))
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) || ae.Class != canonical.ErrNetwork || ae.Code != canonical.CodeStreamTruncated || !ae.Retryable || ae.Attempts != 3 {
				t.Fatalf("error %#v, want network/stream_truncated, retryable, after 3 attempts", err)
			}
			if !strings.Contains(ae.Message, "cut off") || requests.Load() != 3 {
				t.Errorf("%d requests, message %q", requests.Load(), ae.Message)
			}
		})
		stream, sctype, _ := recorded(t, b.typ, true)
		t.Run(b.typ+"/stream", func(t *testing.T) {
			srv, requests := serveCounting(t, func(w http.ResponseWriter, _ *http.Request) {
				cutOff(w, stream, sctype)
			})
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) { c.MaxRetries = 2 })
			evs, err := adaptertest.Collect(a.Stream(context.Background(), userRequest(b.model)))
			if canonical.ClassOf(err) != canonical.ErrNetwork || canonical.CodeOf(err) != canonical.CodeStreamTruncated {
				t.Fatalf("error %v, want network/stream_truncated", err)
			}
			if n := len(evs); n < 2 || evs[n-1].Type != canonical.EventMessageComplete || evs[n-1].Response.StopReason != canonical.StopError {
				t.Fatalf("events %+v: want the content so far, then message.complete with stop reason error", evs)
			}
			if requests.Load() != 1 {
				t.Errorf("%d requests: a stream is not retried once its body arrived", requests.Load())
			}
		})
	}
}

// TestBodyLimits: a non-streamed body larger than max_body_bytes and a
// stream event larger than max_event_bytes are invalid_response errors
// that name the option; neither is retried.
func TestBodyLimits(t *testing.T) {
	for _, b := range builtins {
		body, ctype, _ := recorded(t, b.typ, false)
		t.Run(b.typ+"/max_body_bytes", func(t *testing.T) {
			srv, requests := serveCounting(t, func(w http.ResponseWriter, r *http.Request) {
				answer(body, ctype)(w, r)
			})
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) {
				c.Options = withOption(c.Options, "max_body_bytes", len(body)-1)
			})
			_, err := a.Complete(context.Background(), userRequest(b.model))
			if canonical.CodeOf(err) != canonical.CodeInvalidResponse || !strings.Contains(err.Error(), "max_body_bytes") || requests.Load() != 1 {
				t.Fatalf("error %v after %d requests, want invalid_response naming max_body_bytes after 1", err, requests.Load())
			}
			if c := repeatedClause(err.Error()); c != "" {
				t.Errorf("error %q says %q twice", err, c)
			}
			// At the limit, the body is read.
			a = openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) {
				c.Options = withOption(c.Options, "max_body_bytes", len(body))
			})
			if _, err := a.Complete(context.Background(), userRequest(b.model)); err != nil {
				t.Fatalf("a body of exactly max_body_bytes: %v", err)
			}
		})
		if b.typ == "bedrock" || b.typ == "bedrock-converse" {
			continue // event-stream frames carry AWS's own bound (16 MiB)
		}
		stream, sctype, _ := recorded(t, b.typ, true)
		t.Run(b.typ+"/max_event_bytes", func(t *testing.T) {
			srv := serve(t, answer(stream, sctype))
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) {
				c.Options = withOption(c.Options, "max_event_bytes", 40)
			})
			evs, err := adaptertest.Collect(a.Stream(context.Background(), userRequest(b.model)))
			if canonical.CodeOf(err) != canonical.CodeInvalidResponse || !strings.Contains(err.Error(), "max_event_bytes") {
				t.Fatalf("error %v, want invalid_response naming max_event_bytes", err)
			}
			if c := repeatedClause(err.Error()); c != "" {
				t.Errorf("error %q says %q twice", err, c)
			}
			if n := len(evs); n == 0 || evs[n-1].Type != canonical.EventMessageComplete || evs[n-1].Response.StopReason != canonical.StopError {
				t.Fatalf("events %+v: want message.complete with stop reason error", evs)
			}
		})
	}
}

// repeatedClause returns a clause (a part between ": " separators, or
// a parenthesised hint such as "(the max_event_bytes option)") that text
// holds more than once, or "" when it holds none twice: an error that
// wraps its cause says the cause once.
func repeatedClause(text string) string {
	seen := map[string]bool{}
	for _, c := range strings.Split(text, ": ") {
		if c = strings.TrimSpace(c); len(c) > 3 && seen[c] {
			return c
		}
		seen[c] = true
	}
	for rest := text; ; {
		open := strings.Index(rest, "(")
		if open < 0 {
			return ""
		}
		end := strings.Index(rest[open:], ")")
		if end < 0 {
			return ""
		}
		hint := rest[open : open+end+1]
		if strings.Count(text, hint) > 1 && !strings.HasPrefix(hint, "(HTTP ") {
			return hint
		}
		rest = rest[open+end+1:]
	}
}

// withOption returns opts with key set, copied.
func withOption(opts map[string]any, key string, v any) map[string]any {
	out := map[string]any{key: v}
	for k, val := range opts {
		out[k] = val
	}
	return out
}

// head returns the first half of a recorded stream's events (SSE events,
// or event-stream frames for Bedrock), whole.
func head(t *testing.T, stream []byte, ctype string) []byte {
	t.Helper()
	var ends []int
	if ctype == "application/vnd.amazon.eventstream" {
		for off := 0; off+4 <= len(stream); {
			off += int(binary.BigEndian.Uint32(stream[off:]))
			ends = append(ends, off)
		}
	} else {
		norm := strings.ReplaceAll(string(stream), "\r\n", "\n")
		stream = []byte(norm)
		for off := 0; ; {
			i := strings.Index(norm[off:], "\n\n")
			if i < 0 {
				break
			}
			off += i + 2
			ends = append(ends, off)
		}
	}
	if len(ends) < 2 {
		t.Fatalf("a stream of %d events", len(ends))
	}
	return stream[:ends[len(ends)/2-1]]
}

// hold answers with body, flushed, then sends nothing until the client
// goes away.
func hold(body []byte, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r) // so that the server notices when the client goes
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// idleTimeout is the idle timeout of these tests, in seconds: short, so
// that a stall is seen soon.
const idleTimeout = 0.4

// steadyIdleTimeout is the idle timeout of the slow but steady answers:
// seventy-five times the pause between their pieces, so that a loaded
// machine (or the race detector) does not make it strike — a 40 ms pause
// under a 0.4 s idle timeout once did, at a load average of 20. These
// subtests run in parallel, so the longer waits cost little.
const steadyIdleTimeout = 1.5

// TestIdleTimeout: a server that stops sending ends the call through the
// adapter's idle timeout (the idle_timeout_seconds option), long before
// the whole-call timeout: class network, code timeout, the content so far
// kept in message.complete with stop reason error, no retry, and no
// goroutine left behind. The idle timeout bounds the wait for a streamed
// call's headers and between reads of any body, not the whole call: a
// slow stream that keeps sending, and a non-streamed answer that takes
// longer than the idle timeout to begin, succeed.
func TestIdleTimeout(t *testing.T) {
	idle := func(c *adapters.Config) {
		c.MaxRetries = 2
		c.Timeout = time.Minute
		c.Options = withOption(c.Options, "idle_timeout_seconds", idleTimeout)
	}
	isIdle := func(err error) bool {
		return canonical.ClassOf(err) == canonical.ErrNetwork && canonical.CodeOf(err) == canonical.CodeTimeout &&
			strings.Contains(err.Error(), "idle timeout")
	}
	for _, b := range builtins {
		stream, sctype, _ := recorded(t, b.typ, true)
		if b.typ == "vertex" {
			// Its listed stream is one event: stall in a longer one of
			// the same protocol.
			stream = adaptertest.ReadFixture(t, "gemini", "stream-image-inlinedata-input", "response.txt")
		}
		body, ctype, _ := recorded(t, b.typ, false)
		t.Run(b.typ+"/stream stalls mid-stream", func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			srv := httptest.NewServer(hold(head(t, stream, sctype), sctype))
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", idle)
			// The whole-call timeout is a minute: the error says which
			// timer ended the call, without reading the wall clock.
			evs, err := adaptertest.Collect(a.Stream(context.Background(), userRequest(b.model)))
			if !isIdle(err) {
				t.Fatalf("error %v, want network/timeout from the idle timeout", err)
			}
			n := len(evs)
			if n < 2 || evs[0].Type != canonical.EventMessageStart || evs[n-1].Type != canonical.EventMessageComplete || evs[n-1].Response.StopReason != canonical.StopError {
				t.Fatalf("events %+v: want the events so far, then message.complete with stop reason error", evs)
			}
			srv.Close()
			a.Close()
			goleak.VerifyNone(t, before)
		})
		t.Run(b.typ+"/stream never answers", func(t *testing.T) {
			srv, requests := serveCounting(t, func(_ http.ResponseWriter, r *http.Request) {
				readAll(r) // so that the server notices when the client goes
				<-r.Context().Done()
			})
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", idle)
			evs, err := adaptertest.Collect(a.Stream(context.Background(), userRequest(b.model)))
			if !isIdle(err) || len(evs) != 0 || requests.Load() != 1 {
				t.Fatalf("error %v, %d events, %d requests; want the idle timeout alone, not retried", err, len(evs), requests.Load())
			}
		})
		t.Run(b.typ+"/complete body stalls", func(t *testing.T) {
			srv, requests := serveCounting(t, func(w http.ResponseWriter, r *http.Request) {
				hold(body[:len(body)/2], ctype)(w, r)
			})
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", idle)
			_, err := a.Complete(context.Background(), userRequest(b.model))
			if !isIdle(err) || requests.Load() != 1 {
				t.Fatalf("error %v after %d requests; want the idle timeout after 1", err, requests.Load())
			}
		})
		t.Run(b.typ+"/slow but steady", func(t *testing.T) {
			t.Parallel()
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				streamed := r.URL.Query().Get("alt") == "sse" || strings.Contains(r.URL.Path, "stream") || bytes.Contains(readAll(r), []byte(`"stream":true`))
				data, ct := body, ctype
				if streamed {
					data, ct = stream, sctype
				} else {
					// The headers of a non-streamed answer come later
					// than the idle timeout.
					time.Sleep(time.Duration(1.5 * steadyIdleTimeout * float64(time.Second)))
				}
				// The body comes in pieces, each well within the idle
				// timeout, together longer than it.
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(http.StatusOK)
				piece := len(data)/100 + 1
				for off := 0; off < len(data); off += piece {
					w.Write(data[off:min(off+piece, len(data))])
					w.(http.Flusher).Flush()
					time.Sleep(time.Duration(steadyIdleTimeout / 75 * float64(time.Second)))
				}
			})
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) {
				c.MaxRetries, c.Timeout = 2, time.Minute
				c.Options = withOption(c.Options, "idle_timeout_seconds", steadyIdleTimeout)
			})
			if _, err := adaptertest.Collect(a.Stream(context.Background(), userRequest(b.model))); err != nil {
				t.Errorf("stream: %v", err)
			}
			if _, err := a.Complete(context.Background(), userRequest(b.model)); err != nil {
				t.Errorf("complete: %v", err)
			}
		})
	}
}

func readAll(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}
