package openaicompat

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// fuzzCall returns a call prepared as a vLLM adapter prepares it, with
// both reasoning fields read and a tool declared, so that every path of
// the decoders and of finalize is reachable. It makes no HTTP call.
func fuzzCall(tb testing.TB, stream bool) *call {
	env := newEnv()
	cfg := newConfig(KindVLLM, "http://127.0.0.1:1", env)
	cfg.Options["reasoning_fields"] = []any{"reasoning_content", "reasoning"}
	withTools(&cfg, "vllm:fuzz")
	a, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	a.rt.Config.Logger = slog.New(slog.DiscardHandler)
	req := request("vllm:fuzz", userMsg("weather?"))
	req.Tools = []canonical.ToolDefinition{weatherTool}
	c, err := a.prepare(req, stream)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// streamEvents runs the stream decoder over body as the runtime does
// (without its panic guard, so that a panic fails the fuzz run), then
// passes the events through finishStream.
func streamEvents(c *call, body []byte) iter.Seq2[canonical.StreamEvent, error] {
	return c.finishStream(func(yield func(canonical.StreamEvent, error) bool) {
		a := adapters.NewAssembler(yield, c.a.Name(), c.req.Model, c.req.RequestID, c.req.ToolIDs)
		err := c.d.DecodeStream(bytes.NewReader(body), a)
		if a.Finished() || a.Stopped() {
			return
		}
		a.Fail(context.Background(), err)
	})
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
		a := adapters.NewAssembler(nil, c.a.Name(), c.req.Model, c.req.RequestID, c.req.ToolIDs)
		err := c.decodeBody(data, a)
		if err == nil && !a.Finished() {
			t.Fatal("neither finished nor failed")
		}
	})
}
