package openaicompat

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// fuzzCall is a vLLM adapter and a request as a call makes them, with
// both reasoning fields read and a tool declared, so that every path of
// the decoders and of Finish is reachable. It makes no HTTP call.
type fuzzCallT struct {
	a   *Adapter
	req *canonical.Request
}

func fuzzCall(tb testing.TB, stream bool) *fuzzCallT {
	env := newEnv()
	cfg := newConfig(KindVLLM, "http://127.0.0.1:1", env)
	cfg.Options["reasoning_fields"] = []any{"reasoning_content", "reasoning"}
	cfg.Logger = slog.New(slog.DiscardHandler)
	withTools(&cfg, "vllm:fuzz")
	a, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	req := request("vllm:fuzz", userMsg("weather?"))
	req.RequestID = canonical.NewRequestID()
	req.Tools = []canonical.ToolDefinition{weatherTool}
	req.Stream = stream
	return &fuzzCallT{a: a, req: req}
}

// streamEvents runs the call's stream half over body as Stream does
// (driver.Adapter.StreamBody), without the network.
func streamEvents(c *fuzzCallT, body []byte) iter.Seq2[canonical.StreamEvent, error] {
	return c.a.StreamBody(c.req, bytes.NewReader(body))
}

// noPanic fails t when err is the driver's report of a decoder panic.
func noPanic(t *testing.T, err error) {
	if err != nil && strings.Contains(err.Error(), "decoder panic") {
		t.Fatal(err)
	}
}

// addSeeds adds the recorded Chat Completions bodies and this package's
// hand-written ones.
func addSeeds(f *testing.F) {
	// Larger bodies slow minimization down for little new coverage; the
	// regular tests decode them whole.
	const maxSeed = 8 << 10
	var paths []string
	if dir, err := adaptertest.FixturesRoot("openai-chat"); err == nil {
		paths, _ = filepath.Glob(filepath.Join(dir, "*", "response.*"))
	}
	local, _ := filepath.Glob(filepath.Join("testdata", "*.sse"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range append(append(paths, local...), more...) {
		if b, err := os.ReadFile(p); err == nil && len(b) <= maxSeed {
			f.Add(b)
		}
	}
	f.Add([]byte(sse(chunkHead + `{"index":0,"delta":{"reasoning":"r","reasoning_content":"rc","content":"c"},"finish_reason":"unheard_of"}]}`)))
	f.Add([]byte(sse(chunkHead+`{"index":0,"delta":{"tool_calls":[{"index":3,"id":"x","function":{"name":"get_weather","arguments":{"city":1}}}]},"finish_reason":null}]}`, chunkHead+`{"index":0,"delta":{},"finish_reason":"error"}]}`)))
	f.Add([]byte("data: {\"error\":\"boom\"}\n\n"))
}

// FuzzStreamDecoder feeds arbitrary bytes to the stream decoder as this
// adapter configures it: no panic, a finished message keeps the 000 §5.2
// invariants, and every error is an AdapterError. A body that is a
// document, not a stream, fails with its error alone.
func FuzzStreamDecoder(f *testing.F) {
	addSeeds(f)
	c := fuzzCall(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			evs  []canonical.StreamEvent
			errs int
		)
		for ev, err := range streamEvents(c, data) {
			if err != nil {
				errs++
				noPanic(t, err)
				var ae *canonical.AdapterError
				if !errors.As(err, &ae) {
					t.Fatalf("error %T is not an AdapterError: %v", err, err)
				}
				continue
			}
			evs = append(evs, ev)
		}
		if len(evs) == 0 {
			if errs != 1 {
				t.Fatalf("no message.complete, and %d errors", errs)
			}
			if first := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf"); len(first) == 0 || !strings.ContainsRune("{[<", rune(first[0])) {
				t.Fatalf("a body that is not a document failed without message.complete: %q", data)
			}
			return
		}
		if f := streamcheck.Check(evs); len(f) > 0 {
			t.Fatalf("invariant broken: %v", f)
		}
	})
}

// FuzzBodyDecoder does the same for non-streamed bodies.
func FuzzBodyDecoder(f *testing.F) {
	addSeeds(f)
	c := fuzzCall(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := c.a.CompleteBody(c.req, data)
		noPanic(t, err)
		var ae *canonical.AdapterError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("error %T is not an AdapterError: %v", err, err)
		}
		if err == nil && resp == nil {
			t.Fatal("neither a response nor an error")
		}
	})
}

// FuzzClassify feeds arbitrary error bodies, at every status class, to
// the error parser of compatible servers (openai.ClassifyChat's shapes
// plus the model-not-loaded signals): it never panics, always gives a
// known class with the status kept, and model_not_loaded only for a
// failure status, retryable.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		`{"error":{"message":"model not loaded","type":"invalid_request_error","code":"model_not_loaded"}}`,
		`{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
		`{"error":"Loading model"}`, `[{"error":{"code":503,"message":"loading","status":"UNAVAILABLE"}}]`,
		`{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, `<html>502 Bad Gateway</html>`, ``, `null`, `[]`, `{"error":`,
	} {
		for _, status := range []int{0, 200, 400, 404, 429, 500, 503} {
			f.Add(status, []byte(s))
		}
	}
	known := []canonical.ErrorClass{canonical.ErrRateLimit, canonical.ErrAuth, canonical.ErrServer, canonical.ErrNetwork,
		canonical.ErrContextOverflow, canonical.ErrInvalidRequest, canonical.ErrCancelled, canonical.ErrOther}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = 100 + abs(status)%500
		ae := classify(status, http.Header{}, body)
		if ae == nil {
			t.Fatal("nil error")
		}
		if !slices.Contains(known, ae.Class) {
			t.Fatalf("unknown class %q", ae.Class)
		}
		if ae.Status != status {
			t.Fatalf("status %d, want %d", ae.Status, status)
		}
		if ae.Code == canonical.CodeModelNotLoaded && (status < 400 || !ae.Retryable || ae.Class != canonical.ErrServer) {
			t.Fatalf("model_not_loaded at status %d: %+v", status, ae)
		}
		if ae.Message == "" {
			t.Fatal("empty message")
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// probeTransport answers every readiness probe of one kind with the same
// status and body.
type probeTransport struct {
	status int
	body   []byte
}

func (p probeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: p.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(p.body)), Request: r}, nil
}

// FuzzReady feeds arbitrary bodies to the readiness probes of every
// server kind (model lists, /api/ps, LM Studio's catalogues, vLLM's
// /is_sleeping): Ready never panics and answers nil or an AdapterError
// of one of the outcomes its documentation lists, naming the probe.
func FuzzReady(f *testing.F) {
	for _, s := range []string{
		`{"object":"list","data":[{"id":"qwen3-8b"}]}`,
		`{"models":[{"name":"qwen3-8b:latest","model":"qwen3-8b:latest"}]}`,
		`{"models":[{"key":"qwen3-8b","loaded_instances":[]}]}`,
		`{"object":"list","data":[{"id":"qwen3-8b","state":"not-loaded"}]}`,
		`{"object":"list","data":[{"id":"qwen3-8b","status":{"value":"loading"}}]}`,
		`{"object":"list","data":[{"id":"qwen3-8b","status":"unloaded"}]}`,
		`{"is_sleeping":true}`, `{"data":null}`, `{"data":[null,1,"x"]}`, `[]`, `null`, `{`, ``, `<html>`,
	} {
		f.Add(200, []byte(s))
	}
	f.Add(404, []byte(`{"detail":"Not Found"}`))
	f.Add(503, []byte(`{"error":{"code":503,"message":"Loading model"}}`))
	kinds := []Kind{KindVLLM, KindOllama, KindLMStudio, KindLlamaCpp, KindOpenRouter, KindGeneric}
	outcomes := map[canonical.ErrorClass]bool{canonical.ErrServer: true, canonical.ErrInvalidRequest: true,
		canonical.ErrAuth: true, canonical.ErrRateLimit: true, canonical.ErrNetwork: true, canonical.ErrContextOverflow: true, canonical.ErrOther: true}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = 100 + abs(status)%500
		for _, kind := range kinds {
			cfg := newConfig(kind, "http://127.0.0.1:1", newEnv())
			cfg.Transport = probeTransport{status, body}
			a, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = a.Ready(context.Background(), string(kind)+":qwen3-8b")
			if err == nil {
				continue
			}
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) {
				t.Fatalf("%s: error %T is not an AdapterError: %v", kind, err, err)
			}
			if !outcomes[ae.Class] || !strings.HasPrefix(ae.Message, "ready:") {
				t.Fatalf("%s: unexpected outcome %+v", kind, ae)
			}
		}
	})
}
