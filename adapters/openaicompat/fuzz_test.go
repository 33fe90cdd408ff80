package openaicompat

import (
	"bytes"
	"errors"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
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
// invariants, and every error is an AdapterError.
func FuzzStreamDecoder(f *testing.F) {
	addSeeds(f)
	c := fuzzCall(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []canonical.StreamEvent
		for ev, err := range streamEvents(c, data) {
			if err != nil {
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
			t.Fatal("no message.complete")
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
