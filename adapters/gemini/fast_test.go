package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/replay"
)

// The fast path must change nothing but speed: every recorded stream,
// and every fuzzed one, decodes to the same events, response and error
// with it as without it.

type streamOutcome struct {
	Events []canonical.StreamEvent
	Resp   *canonical.Response
	Err    string
}

func decodeWith(fast bool, body []byte) string {
	defer func() { fastPaths = true }()
	fastPaths = fast
	var o streamOutcome
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		o.Events = append(o.Events, ev)
		return true
	}, DefaultName, testModel, "req_test", nil)
	a.SetClock(epoch, func() time.Time { return epoch })
	if err := decodeStream(bytes.NewReader(body), a); err != nil {
		o.Err = err.Error()
	}
	if a.Finished() {
		o.Resp = a.Response()
	}
	b, _ := json.Marshal(o)
	return replay.NormalizeIDs(string(b)) // tool ids are new ULIDs on every decode
}

func sameOutcome(t *testing.T, name string, body []byte) {
	t.Helper()
	if diff := cmp.Diff(decodeWith(false, body), decodeWith(true, body)); diff != "" {
		t.Fatalf("%s: the fast path changes the outcome (-full +fast):\n%s", name, diff)
	}
}

func recordedGeminiStreams(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, api := range []string{"gemini"} {
		ps, _ := filepath.Glob(filepath.Join(adaptertest.FixturesDir(t, api), "*", "response.txt"))
		paths = append(paths, ps...)
	}
	if len(paths) < 3 {
		t.Fatalf("only %d recorded Gemini streams", len(paths))
	}
	return paths
}

func TestFastPathChangesNothing(t *testing.T) {
	for _, p := range recordedGeminiStreams(t) {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sameOutcome(t, p, body)
	}
}

func FuzzFastPath(f *testing.F) {
	addStreamSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		sameOutcome(t, "fuzz", body)
	})
}

// FuzzFastChunk holds the chunk fast path to encoding/json: whatever it
// reads, the full decoder reads the same.
func FuzzFastChunk(f *testing.F) {
	f.Add([]byte(`{"candidates": [{"content": {"parts": [{"text": "**Plan**\n\nHi \"x\"","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 34,"totalTokenCount": 102,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 34}],"thoughtsTokenCount": 68},"modelVersion": "gemini-2.5-pro","responseId": "x"}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":"c2ln"},{"text":"b"}]}}],"modelVersion":"m"}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Oslo","days":[1, 2]}},"thoughtSignature":"c2ln"}],"role":"model"},"index":0}],"modelVersion":"m"}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"a","name":"f","args":{}}},{"functionCall":{"id":"b","name":"g","args":{"x":null}}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast fastChunk
		got, ok := fast.decode(data)
		if !ok {
			return
		}
		var want generateResponse
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("the fast path reads %q, encoding/json fails: %v", data, err)
		}
		if diff := cmp.Diff(want, *got, cmp.AllowUnexported(generateResponse{})); diff != "" {
			t.Fatalf("%q: the fast path reads otherwise (-encoding/json +fast):\n%s", data, diff)
		}
	})
}

// TestFastPathTaken checks that the fast path reads most recorded chunks
// (all but the ones with function calls, finish reasons and safety
// ratings), so that the tests above compare something.
func TestFastPathTaken(t *testing.T) {
	taken, total := 0, 0
	for _, p := range recordedGeminiStreams(t) {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r := driver.NewSSEReader(bytes.NewReader(body))
		var fast fastChunk
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			data := bytes.TrimSpace(ev.Data)
			if bytes.Contains(data, []byte(`"functionCall"`)) || bytes.Contains(data, []byte(`"finishReason"`)) || !bytes.Contains(data, []byte(`"text"`)) {
				continue
			}
			total++
			if _, ok := fast.decode(data); ok {
				taken++
			}
		}
	}
	if total == 0 || taken*10 < total*9 {
		t.Fatalf("the fast path reads %d of %d recorded text chunks, want 90%%", taken, total)
	}
}
