package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/wire"
)

// addStreamSeeds seeds f with every recorded SSE body (when the shared
// fixtures are present) and the hand-written ones in testdata/fuzz.
func addStreamSeeds(f *testing.F) {
	if dir, err := adaptertest.FixturesRoot(fixturesAPI); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "response.txt"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "*.sse"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("data: {}\n\n"))
	f.Add([]byte("data: []\n\ndata: null\n\n"))
}

// checkResponse asserts what must hold for any decoded response.
func checkResponse(t *testing.T, a *driver.Assembler) {
	r := a.Response()
	for i, b := range r.Content {
		if tu, ok := b.(canonical.ToolUseBlock); ok {
			var obj map[string]any
			if err := json.Unmarshal(tu.Input, &obj); err != nil {
				t.Fatalf("content[%d]: tool input %q is not a JSON object", i, tu.Input)
			}
			if tu.ID == "" {
				t.Fatalf("content[%d]: tool without id", i)
			}
		}
	}
	if len(r.ProviderRaw) > 0 && !json.Valid(r.ProviderRaw) {
		t.Fatalf("provider raw is not JSON: %q", r.ProviderRaw)
	}
}

// FuzzDecodeStream feeds arbitrary bytes to the stream decoder: it may
// fail, never panic, and what it assembles is well-formed.
func FuzzDecodeStream(f *testing.F) {
	addStreamSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		a := driver.NewAssembler(func(canonical.StreamEvent, error) bool { n++; return true }, DefaultName, testModel, "req_fuzz", nil)
		_ = decodeStream(bytes.NewReader(data), a)
		checkResponse(t, a)
	})
}

// FuzzDecodeBody does the same for non-streamed bodies.
func FuzzDecodeBody(f *testing.F) {
	if dir, err := adaptertest.FixturesRoot(fixturesAPI); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "response.json"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`[{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"}]}]`))
	f.Add([]byte(`{"promptFeedback":{"blockReason":"OTHER"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := driver.NewAssembler(nil, DefaultName, testModel, "req_fuzz", nil)
		_ = decodeBody(data, a)
		checkResponse(t, a)
	})
}

// FuzzConvertSchema: any input converts or fails cleanly, and a converted
// schema marshals to JSON.
func FuzzConvertSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"]}`,
		`{"anyOf":[{"$ref":"#/$defs/A"},{"type":"null"}],"$defs":{"A":{"allOf":[{"$ref":"#/$defs/A"}]}}}`,
		`{"type":"array","items":[{"enum":[1,"a",null,true]}],"examples":[{}]}`,
		`[[[[[[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := convertSchema(data, true)
		if err != nil {
			return
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("converted schema does not marshal: %v", err)
		}
	})
}

// FuzzClassify: any status and error body classify into a classified
// error with the status kept (adaptertest.CheckClassified); and each kind
// of failure rendered as the Gemini API renders it (internal/wire: a
// google.rpc.Status, a RetryInfo on a 429) with a fuzzed message reads
// back with that message.
func FuzzClassify(f *testing.F) {
	f.Add(uint16(429), []byte(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}}`), uint8(2), "quota")
	f.Add(uint16(404), []byte(`[{"error":{"code":404,"message":"models/x","status":"NOT_FOUND"}}]`), uint8(6), "models/gemini-nope is not found")
	f.Add(uint16(400), []byte(`{"error":null}`), uint8(5), "input token count exceeds the maximum")
	f.Add(uint16(0), []byte(`{"error":{"details":[{"retryDelay":"1e400s"}]}}`), uint8(1), "\u0000")
	f.Fuzz(func(t *testing.T, code uint16, body []byte, kind uint8, message string) {
		adaptertest.CheckClassified(t, classify, adaptertest.FuzzStatus(code), http.Header{}, body)
		message, ok := adaptertest.FuzzMessage(message)
		if !ok {
			return
		}
		e := wire.ErrorFor(wire.Gemini, wire.Kinds[int(kind)%len(wire.Kinds)], "gemini-2.5-flash")
		e.Message = message
		adaptertest.CheckReadsBack(t, classify, e.Status, e.Header(wire.Gemini), e.Body(wire.Gemini), message)
	})
}
