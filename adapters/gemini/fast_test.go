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
	f.Add([]byte(`{"candidates": [{"content": {"parts": [{"text": "."}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 34,"candidatesTokenCount": 469},"modelVersion": "m"}`))
	f.Add([]byte(`{"candidates": [{"finishReason": "3","index": 0}],"usageMetadata": {"promptTokenCount": 34}}`))
	f.Add([]byte(`{"candidates": [{"finishReason": null}],"usageMetadata": {"promptTokenCount": 34,"thoughtsTokenCount": 6}}`))
	// A stream's earlier chunk, whose usage the fast path keeps: a
	// chunk restating it byte for byte is not walked again.
	earlier := []byte(`{"candidates": [{"content": {"parts": [{"text": "a"}]}}],"usageMetadata": {"promptTokenCount": 34,"thoughtsTokenCount": 6}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		var first, after fastChunk
		if _, ok := after.decode(earlier); !ok {
			t.Fatal("the fast path declines the earlier chunk")
		}
		for i, fast := range []*fastChunk{&first, &first, &after} { // the second read of data restates its usage
			got, ok := fast.decode(data)
			if !ok {
				continue
			}
			var want generateResponse
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("read %d: the fast path reads %q, encoding/json fails: %v", i, data, err)
			}
			if diff := cmp.Diff(want, *got, cmp.AllowUnexported(generateResponse{})); diff != "" {
				t.Fatalf("read %d: %q: the fast path reads otherwise (-encoding/json +fast):\n%s", i, data, diff)
			}
		}
	})
}

// TestUsageRestated checks that a usage restated byte for byte reads as
// the first time, and one that differs in any byte is walked again.
func TestUsageRestated(t *testing.T) {
	chunk := func(usage string) []byte {
		return []byte(`{"candidates": [{"content": {"parts": [{"text": "a"}]}}],"usageMetadata": ` + usage + `,"modelVersion": "m"}`)
	}
	var fast fastChunk
	for _, tc := range []struct {
		usage  string
		want   usageMetadata
		wantOK bool
	}{
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 6}`, usageMetadata{PromptTokenCount: 34, ThoughtsTokenCount: 6}, true},
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 6}`, usageMetadata{PromptTokenCount: 34, ThoughtsTokenCount: 6}, true},
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 7}`, usageMetadata{PromptTokenCount: 34, ThoughtsTokenCount: 7}, true},
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 7 }`, usageMetadata{PromptTokenCount: 34, ThoughtsTokenCount: 7}, true},
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 7 `, usageMetadata{}, false}, // cut short: not the object before
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 7 }x`, usageMetadata{}, false},
		{`{"promptTokenCount": 34,"thoughtsTokenCount": 7 }`, usageMetadata{PromptTokenCount: 34, ThoughtsTokenCount: 7}, true},
	} {
		r, ok := fast.decode(chunk(tc.usage))
		if ok != tc.wantOK {
			t.Fatalf("usage %s: read %v, want %v", tc.usage, ok, tc.wantOK)
		}
		if ok && *r.UsageMetadata != tc.want {
			t.Fatalf("usage %s: read %+v, want %+v", tc.usage, *r.UsageMetadata, tc.want)
		}
	}
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
