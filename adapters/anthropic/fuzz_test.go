package anthropic

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// addFixtureSeeds adds every recorded Anthropic response to f's corpus.
func addFixtureSeeds(f *testing.F, file string) {
	dir := fixturesDir(f)
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), file)); err == nil {
			f.Add(b, false)
		}
	}
}

// checkResponse fails on a finished response whose content breaks the
// canonical invariants.
func checkResponse(t *testing.T, a *driver.Assembler) {
	if !a.Finished() {
		return
	}
	if raw := a.Response().ProviderRaw; len(raw) > 0 && !json.Valid(raw) {
		t.Fatalf("provider_raw is not JSON: %q", raw)
	}
	for i, b := range a.Response().Content {
		if tu, ok := b.(canonical.ToolUseBlock); ok {
			var obj map[string]any
			if err := json.Unmarshal(tu.Input, &obj); err != nil {
				t.Fatalf("content[%d]: tool input %q is not a JSON object: %v", i, tu.Input, err)
			}
			if !canonical.IsToolUseID(tu.ID) {
				t.Fatalf("content[%d]: tool id %q", i, tu.ID)
			}
		}
	}
}

// FuzzDecodeStream feeds arbitrary bytes to the stream decoder: it must
// never panic, and what it finishes must be canonical.
func FuzzDecodeStream(f *testing.F) {
	f.Add(sse(evStart, evTextStart, evTextHello, evStop0, messageDelta("end_turn"), evMsgStop), false)
	f.Add(sameStream, false)
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"), false)
	addFixtureSeeds(f, "response.txt")
	if b, err := os.ReadFile(filepath.Join("testdata", "websearch", "response.sse")); err == nil {
		f.Add(b, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, structured bool) {
		events := 0
		a := driver.NewAssembler(func(canonical.StreamEvent, error) bool { events++; return true }, "anthropic", testModel, "req_fuzz", nil)
		d := newDecoder("anthropic", structured)
		_ = d.decodeStream(bytes.NewReader(data), a)
		checkResponse(t, a)
	})
}

// FuzzDecodeBody does the same for non-streamed bodies.
func FuzzDecodeBody(f *testing.F) {
	f.Add(okBody, false)
	f.Add(sameBody, true)
	addFixtureSeeds(f, "response.json")
	if b, err := os.ReadFile(filepath.Join("testdata", "websearch", "response.json")); err == nil {
		f.Add(b, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, structured bool) {
		a := driver.NewAssembler(nil, "anthropic", testModel, "req_fuzz", nil)
		d := newDecoder("anthropic", structured)
		_ = d.decodeBody(data, a)
		checkResponse(t, a)
	})
}
