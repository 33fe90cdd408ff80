package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// templateChunk is a text chunk as Gemini streams them: the text, then
// the usage, then the model version and response id.
const templateChunk = `{"candidates": [{"content": {"parts": [{"text": "Hello","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 34,"totalTokenCount": 102},"modelVersion": "gemini-2.5-pro","responseId": "r1"}`

// readAfter decodes data with a fastChunk that has read earlier and
// checks it against a fastChunk that has read nothing and against
// encoding/json: the same verdict, and the same response when read. It
// returns whether data was read and whether from the template.
func readAfter(t *testing.T, earlier, data []byte) (ok, fromTemplate bool) {
	t.Helper()
	var f, fresh fastChunk
	f.decode(earlier)
	reads := f.tplReads
	got, ok := f.decode(data)
	fromTemplate = f.tplReads > reads
	want, freshOK := fresh.decode(data)
	if ok != freshOK {
		t.Fatalf("%q after %q: read %v, but %v after nothing", data, earlier, ok, freshOK)
	}
	if !ok {
		return false, fromTemplate
	}
	if diff := cmp.Diff(*want, *got, cmp.AllowUnexported(generateResponse{})); diff != "" {
		t.Fatalf("%q after %q reads otherwise than after nothing (-after nothing +after earlier):\n%s", data, earlier, diff)
	}
	var std generateResponse
	if err := json.Unmarshal(data, &std); err != nil {
		t.Fatalf("the fast path reads %q, encoding/json fails: %v", data, err)
	}
	if diff := cmp.Diff(std, *got, cmp.AllowUnexported(generateResponse{})); diff != "" {
		t.Fatalf("%q after %q: the fast path reads otherwise (-encoding/json +fast):\n%s", data, earlier, diff)
	}
	return true, fromTemplate
}

// TestChunkTemplateTaken checks that on the recorded streams, whose
// usage grows chunk by chunk, most text chunks are read from the
// template of the one before (all but a block's first, whose part
// differs, and the finish chunk), so that the template's tests test
// what real streams do.
func TestChunkTemplateTaken(t *testing.T) {
	fromTemplate, text := 0, 0
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
			if bytes.Contains(data, []byte(`"text"`)) && !bytes.Contains(data, []byte(`"functionCall"`)) {
				text++
			}
			if _, ok := fast.decode(data); !ok {
				t.Fatalf("%s: a chunk declined: %s", p, data)
			}
		}
		fromTemplate += fast.tplReads
	}
	if fromTemplate*3 < text*2 {
		t.Fatalf("%d of %d recorded text chunks read from the template, want two thirds", fromTemplate, text)
	}
	t.Logf("%d of %d recorded text chunks read from the template", fromTemplate, text)
}

// TestChunkTemplate checks that a chunk differing from the last text
// chunk in its text and usage alone is read from it, and that a chunk
// differing anywhere else, or whose text or usage is not what the
// template's was, is walked in full, to the same verdict.
func TestChunkTemplate(t *testing.T) {
	for _, tc := range []struct {
		name, old, new       string
		wantOK, wantTemplate bool
	}{
		{"itself", "", "", true, true},
		{"another text", `"Hello"`, `"World, \"quoted\"\n\u00e9\ud83d\ude00"`, true, true},
		{"empty text", `"Hello"`, `""`, true, true},
		{"text with invalid UTF-8", `"Hello"`, "\"a\xffb\"", true, true},
		{"another usage", `"totalTokenCount": 102`, `"totalTokenCount": 131,"thoughtsTokenCount": 29`, true, true},
		{"usage with details", `"totalTokenCount": 102}`, `"totalTokenCount": 102,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 34}]}`, true, true},
		{"text and usage", `"Hello","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 34`, `"Hi","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 35`, true, true},
		{"text unterminated", `"Hello"`, `"Hello`, false, false},
		{"text with a bad escape", `"Hello"`, `"Hel\qlo"`, false, false},
		{"text with a control byte", `"Hello"`, "\"Hel\nlo\"", false, false},
		{"text null", `"Hello"`, `null`, true, false},
		{"text a number", `"Hello"`, `5`, false, false},
		{"text an object", `"Hello"`, `{"a":"b"}`, false, false},
		{"usage a repeated key", `"totalTokenCount": 102`, `"totalTokenCount": 102,"promptTokenCount": 35`, false, false},
		{"usage null", `{"promptTokenCount": 34,"totalTokenCount": 102}`, `null`, false, false},
		{"usage cut short", `"totalTokenCount": 102}`, `"totalTokenCount": 102`, false, false},
		{"usage a float read", `"promptTokenCount": 34`, `"promptTokenCount": 3.5`, false, false},
		{"usage a float skipped", `"totalTokenCount": 102`, `"totalTokenCount": 1.5`, true, true},
		{"another response id", `"r1"`, `"r2"`, true, false},
		{"another model", `"gemini-2.5-pro"`, `"gemini-2.5-flash"`, true, false},
		{"a finish reason", `"index": 0}`, `"index": 0,"finishReason": "STOP"}`, true, false},
		{"thought false", `"thought": true`, `"thought": false`, true, false},
		{"a repeated text", `"thought": true`, `"thought": true,"text": "x"`, false, false},
		{"a repeated envelope key", `"responseId": "r1"`, `"responseId": "r1","modelVersion": "m"`, false, false},
		{"data after the object", `"r1"}`, `"r1"}x`, false, false},
		{"a second object", `"r1"}`, `"r1"}{}`, false, false},
		{"the object left open", `"r1"}`, `"r1"`, false, false},
		{"space before the close", `"r1"}`, `"r1" }`, true, false},
		{"two closes", `"r1"}`, `"r1"}}`, false, false},
	} {
		data := strings.Replace(templateChunk, tc.old, tc.new, 1)
		if data == templateChunk && tc.old != "" {
			t.Fatalf("%s: %q is not in the template chunk", tc.name, tc.old)
		}
		ok, fromTemplate := readAfter(t, []byte(templateChunk), []byte(data))
		if ok != tc.wantOK || fromTemplate != tc.wantTemplate {
			t.Errorf("%s: read %v, from the template %v; want %v, %v", tc.name, ok, fromTemplate, tc.wantOK, tc.wantTemplate)
		}
	}
}

// TestChunkTemplateShapes checks which chunks become a template: one
// candidate with one part whose text is a string, and no function call;
// a usage before the text is part of the template, not a hole.
func TestChunkTemplateShapes(t *testing.T) {
	for _, tc := range []struct {
		name, chunk, next string
		wantTemplate      bool
	}{
		{"usage first", `{"usageMetadata": {"promptTokenCount": 3},"candidates": [{"content": {"parts": [{"text": "a"}]}}]}`, `{"usageMetadata": {"promptTokenCount": 3},"candidates": [{"content": {"parts": [{"text": "b"}]}}]}`, true},
		{"usage first, another usage", `{"usageMetadata": {"promptTokenCount": 3},"candidates": [{"content": {"parts": [{"text": "a"}]}}]}`, `{"usageMetadata": {"promptTokenCount": 4},"candidates": [{"content": {"parts": [{"text": "a"}]}}]}`, false},
		{"no usage", `{"candidates": [{"content": {"parts": [{"text": "a"}]}}],"modelVersion": "m"}`, `{"candidates": [{"content": {"parts": [{"text": "b"}]}}],"modelVersion": "m"}`, true},
		{"no usage, then one", `{"candidates": [{"content": {"parts": [{"text": "a"}]}}]}`, `{"candidates": [{"content": {"parts": [{"text": "b"}]}}],"usageMetadata": {"promptTokenCount": 3}}`, false},
		{"two parts", `{"candidates": [{"content": {"parts": [{"text": "a"},{"text": "b"}]}}]}`, `{"candidates": [{"content": {"parts": [{"text": "c"},{"text": "b"}]}}]}`, false},
		{"signed", `{"candidates": [{"content": {"parts": [{"text": "a","thoughtSignature": "c2ln"}]}}]}`, `{"candidates": [{"content": {"parts": [{"text": "b","thoughtSignature": "c2ln"}]}}]}`, true},
		{"text null", `{"candidates": [{"content": {"parts": [{"text": null}]}}]}`, `{"candidates": [{"content": {"parts": [{"text": null}]}}]}`, false},
		{"a function call", `{"candidates": [{"content": {"parts": [{"text": "a","functionCall": {"name": "f","args": {}}}]}}]}`, `{"candidates": [{"content": {"parts": [{"text": "b","functionCall": {"name": "f","args": {}}}]}}]}`, false},
	} {
		ok, fromTemplate := readAfter(t, []byte(tc.chunk), []byte(tc.next))
		if !ok || fromTemplate != tc.wantTemplate {
			t.Errorf("%s: read %v, from the template %v; want true, %v", tc.name, ok, fromTemplate, tc.wantTemplate)
		}
	}
}

// TestChunkTemplateKept checks that a chunk that cannot be a template
// (a function call, a malformed chunk) leaves the template as it was,
// and that a response read from the template after a different chunk
// holds the template's members, not that chunk's.
func TestChunkTemplateKept(t *testing.T) {
	call := `{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f","args": {"x": 1}}}]},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 9},"modelVersion": "other"}`
	usageFirst := `{"usageMetadata": {"promptTokenCount": 3},"candidates": [{"content": {"parts": [{"text": "a","thought": true}]},"index": 0}],"modelVersion": "m"}`
	for _, chunks := range [][]string{
		{templateChunk, call, `{"candidates": [`, strings.Replace(templateChunk, `"Hello"`, `"next"`, 1)},
		{usageFirst, call, `{"candidates": [`, strings.Replace(usageFirst, `"a"`, `"b"`, 1)},
		{templateChunk, call, strings.Replace(templateChunk, `"Hello"`, `"next"`, 1) + "x", strings.Replace(templateChunk, `102`, `7`, 1)},
	} {
		var f fastChunk
		for i, chunk := range chunks {
			got, ok := f.decode([]byte(chunk))
			var want generateResponse
			if err := json.Unmarshal([]byte(chunk), &want); err != nil {
				if ok {
					t.Fatalf("chunk %d: %q read, encoding/json fails: %v", i, chunk, err)
				}
				continue
			}
			if !ok {
				t.Fatalf("chunk %d: %q declined", i, chunk)
			}
			if diff := cmp.Diff(want, *got, cmp.AllowUnexported(generateResponse{})); diff != "" {
				t.Fatalf("chunk %d: %q reads otherwise (-encoding/json +fast):\n%s", i, chunk, diff)
			}
		}
		if f.tplReads != 1 {
			t.Fatalf("%d chunks read from the template, want 1 (the last)", f.tplReads)
		}
	}
}

// FuzzFastChunkAfter holds the fast path reading a chunk after another
// (whose template, usage and model it keeps) to one reading it first and
// to encoding/json, reading it once and again.
func FuzzFastChunkAfter(f *testing.F) {
	f.Add([]byte(templateChunk), []byte(strings.Replace(templateChunk, `"Hello"`, `"World"`, 1)))
	f.Add([]byte(templateChunk), []byte(strings.Replace(templateChunk, `102`, `1020`, 1)))
	f.Add([]byte(templateChunk), []byte(strings.Replace(templateChunk, `"r1"`, `"r1" `, 1)))
	if dir, err := adaptertest.FixturesRoot(fixturesAPI); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "response.txt"))
		for _, file := range files {
			body, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			r := driver.NewSSEReader(bytes.NewReader(body))
			var prev []byte
			for {
				ev, err := r.Next()
				if err != nil {
					break
				}
				data := bytes.Clone(bytes.TrimSpace(ev.Data))
				if prev != nil {
					f.Add(prev, data)
				}
				prev = data
			}
		}
	}
	f.Fuzz(func(t *testing.T, earlier, data []byte) {
		readAfter(t, earlier, data)
		var twice fastChunk // the second read of data may be from its template
		twice.decode(earlier)
		first, ok1 := twice.decode(data)
		var firstResp generateResponse
		if ok1 {
			firstResp = *first
			firstResp.Candidates = slices.Clone(first.Candidates)
			if c := firstResp.Candidates; len(c) == 1 && c[0].Content != nil {
				content := *c[0].Content
				content.Parts = slices.Clone(content.Parts)
				c[0].Content = &content
			}
			if firstResp.UsageMetadata != nil {
				u := *firstResp.UsageMetadata
				firstResp.UsageMetadata = &u
			}
		}
		second, ok2 := twice.decode(data)
		if ok1 != ok2 {
			t.Fatalf("%q read %v, then %v", data, ok1, ok2)
		}
		if ok1 {
			if diff := cmp.Diff(firstResp, *second, cmp.AllowUnexported(generateResponse{})); diff != "" {
				t.Fatalf("%q reads otherwise the second time (-first +second):\n%s", data, diff)
			}
		}
	})
}
