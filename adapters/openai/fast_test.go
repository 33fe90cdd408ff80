package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/replay"
)

// The fast paths must change nothing but speed: every recorded stream,
// and every fuzzed one, decodes to the same events, response and error
// with them as without them.

// decodeBoth decodes body with the fast paths on and off.
func decodeBoth(dec func(io.Reader, *driver.Assembler) error, body []byte) (fast, full streamOutcome) {
	defer func() { fastPaths = true }()
	fastPaths = true
	fast = outcomeOf(dec, body)
	fastPaths = false
	full = outcomeOf(dec, body)
	return fast, full
}

// streamOutcome is everything a decoder produces, comparable.
type streamOutcome struct {
	Events []canonical.StreamEvent
	Resp   *canonical.Response
	Err    string
}

func outcomeOf(dec func(io.Reader, *driver.Assembler) error, body []byte) streamOutcome {
	var o streamOutcome
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		o.Events = append(o.Events, ev)
		return true
	}, "openai", "openai:test-model", "req_test", nil)
	a.SetClock(epoch, func() time.Time { return epoch })
	if err := dec(bytes.NewReader(body), a); err != nil {
		o.Err = err.Error()
	}
	if a.Finished() {
		o.Resp = a.Response()
	}
	return o
}

// toolIDs makes tool ids comparable between two decodes: each call makes
// new ULIDs, so both are numbered in order of appearance.
var toolIDs = cmp.Transformer("toolIDs", func(o streamOutcome) string {
	b, _ := json.Marshal(o)
	return replay.NormalizeIDs(string(b))
})

func recordedStreams(t *testing.T, api string) map[string][]byte {
	t.Helper()
	dir := adaptertest.FixturesDir(t, api)
	paths, err := filepath.Glob(filepath.Join(dir, "*", "response.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recorded streams under %s", dir)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(p))] = b
	}
	return out
}

func TestChatFastPathChangesNothing(t *testing.T) {
	d := ChatDialect{Provider: "openai", ReasoningFields: []string{"reasoning_content", "reasoning"}, ExtraContent: true}
	for name, body := range recordedStreams(t, "openai-chat") {
		fast, full := decodeBoth(d.DecodeStream, body)
		if diff := cmp.Diff(full, fast, toolIDs); diff != "" {
			t.Errorf("%s: the fast path changes the outcome (-full +fast):\n%s", name, diff)
		}
	}
}

func FuzzChatFastPath(f *testing.F) {
	addFixtureSeeds(f, "openai-chat")
	f.Add(sse(chatRole, chatHello, chatStop, chatUsage1, "[DONE]"))
	d := ChatDialect{Provider: "openai", ReasoningFields: []string{"reasoning_content", "reasoning"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, full := decodeBoth(d.DecodeStream, body)
		if diff := cmp.Diff(full, fast, toolIDs); diff != "" {
			t.Fatalf("the fast path changes the outcome (-full +fast):\n%s", diff)
		}
	})
}

// FuzzChatFastChunk holds the chunk fast path to encoding/json: whatever
// it reads, the full decoder reads the same, read first in a stream and
// read after an earlier chunk, prev (whose envelope the fast path skips
// in data when data repeats it), and after itself.
func FuzzChatFastChunk(f *testing.F) {
	var seeds [][]byte
	seeds = append(seeds, []byte(chatHello))
	seeds = append(seeds, []byte(chatRole))
	seeds = append(seeds, []byte(chatStop))
	seeds = append(seeds, []byte(`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]},"finish_reason":null}],"usage":null}`))
	seeds = append(seeds, []byte(`{"model":"m","choices":[{"index":0,"delta":{"content":"\u00e9\n"},"logprobs":{"content":[]}}],"Usage":null}`))
	seeds = append(seeds, []byte(`{"model":"m","choices":[{"index":0,"delta":{"reasoning":"r","reasoning_content":null}}]}`))
	seeds = append(seeds, []byte(`{"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"\"x\"","content":null,"refusal":null}}]}`))
	seeds = append(seeds, []byte(`{"id":"x","model":"m","choices":[],"usage":{"prompt_tokens":53,"completion_tokens":15,"total_tokens":68,"prompt_tokens_details":{"cached_tokens":3,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2,"audio_tokens":0,"accepted_prediction_tokens":0}},"obfuscation":"k"}`))
	seeds = append(seeds, []byte(`{"choices":[],"usage":{"prompt_tokens":null,"completion_tokens":1,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":null}}}`))
	seeds = append(seeds, []byte(`{"usage":{"Prompt_Tokens":5,"total_tokens":1234567890}}`))
	seeds = append(seeds,
		[]byte(`{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}`),
		[]byte(`{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"usage":null} `),
		[]byte(`{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}}`),
		[]byte(`{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"model":"n"}`),
		[]byte(`{"id":"x","model":"m",  "choices":[],"usage":{"total_tokens":1}}`),
		[]byte(`{"id":"x","model":null,"choices":[{"index":0,"delta":{"content":"b"}}]}`),
		[]byte(`{"id":"x","choices":[{"index":0,"delta":{}}],"model":"m"}`),
		[]byte(`{"id":"x","choices":[{"index":0,"delta":{}}]}`),
		[]byte(`{"id":"x","choices":[],"choices":[]}`),
		[]byte(`{"id":"x","id":"y","choices":[]}`),
	)
	for _, prev := range seeds {
		for _, data := range seeds {
			f.Add(prev, data)
		}
	}
	f.Fuzz(func(t *testing.T, prev, data []byte) {
		var fast chatFast
		checkChatChunk(t, &fast, data)
		fast = chatFast{}
		checkChatChunk(t, &fast, prev)
		checkChatChunk(t, &fast, data)
		checkChatChunk(t, &fast, data)
	})
}

// checkChatChunk reads data with fast, which may have read earlier
// chunks, and fails t when the fast path reads it otherwise than
// encoding/json does.
func checkChatChunk(t *testing.T, fast *chatFast, data []byte) {
	t.Helper()
	var got chatChunk
	if !fast.decode(data, &got) {
		return
	}
	var want chatChunk
	var js driver.EventDecoder
	if err := js.Decode(data, &want); err != nil {
		t.Fatalf("the fast path reads %q, encoding/json fails: %v", data, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: the fast path reads otherwise (-encoding/json +fast):\n%s", data, diff)
	}
}

// TestChatFastPathTaken checks that the fast path reads the common chunks
// of the recorded streams (text and argument deltas), so that the tests
// above compare something.
func TestChatFastPathTaken(t *testing.T) {
	taken, deltas := 0, 0
	for _, body := range recordedStreams(t, "openai-chat") {
		r := driver.NewSSEReader(bytes.NewReader(body))
		var fast chatFast
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			data := bytes.TrimSpace(ev.Data)
			if !bytes.Contains(data, []byte(`"content":"`)) && !bytes.Contains(data, []byte(`"arguments":"`)) {
				continue
			}
			if bytes.Contains(data, []byte(`"reasoning_details":[`)) {
				continue // OpenRouter's reasoning entries are the full decoder's by design
			}
			deltas++
			var c chatChunk
			if fast.decode(data, &c) {
				taken++
			}
		}
	}
	if deltas == 0 || taken*10 < deltas*9 {
		t.Fatalf("the fast path reads %d of %d recorded text and argument chunks, want 90%%", taken, deltas)
	}
}

func TestResponsesFastPathChangesNothing(t *testing.T) {
	d := responsesDialect{provider: "openai", reasoning: true}
	for name, body := range recordedStreams(t, "openai-responses") {
		fast, full := decodeBoth(d.DecodeStream, body)
		if diff := cmp.Diff(full, fast, toolIDs); diff != "" {
			t.Errorf("%s: the fast path changes the outcome (-full +fast):\n%s", name, diff)
		}
	}
}

func FuzzResponsesFastPath(f *testing.F) {
	addFixtureSeeds(f, "openai-responses")
	f.Add(rsse(rCreated, rMsgAdded, rDelta, rMsgDone, rCompleted))
	d := responsesDialect{provider: "openai", reasoning: true}
	f.Fuzz(func(t *testing.T, body []byte) {
		// With every string remembered, too: the restated-string memo
		// is then taken by short fuzzed strings as well.
		defer func(n int) { longString = n }(longString)
		for _, n := range []int{longString, 2} {
			longString = n
			fast, full := decodeBoth(d.DecodeStream, body)
			if diff := cmp.Diff(full, fast, toolIDs); diff != "" {
				t.Fatalf("long strings from %d bytes: the fast path changes the outcome (-full +fast):\n%s", n, diff)
			}
		}
	})
}

// respEventSeeds are events of the kinds the fast path reads, as OpenAI
// and its compatibles write them, and a few it must decline.
var respEventSeeds = []string{
	`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi \"there\"\n","logprobs":[],"obfuscation":"x"}`,
	`{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"!","logprobs":[],"obfuscation":"yz"}`,
	`{"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_\u0031","output_index":1,"content_index":0,"delta":"!"}`,
	`{"type":"response.output_text.delta","item_id":"msg_1\"","delta":"!"}`,
	`{"type":"response.output_text.delta","item_id":null,"delta":"!"}`,
	`{"type":"response.output_text.delta","item_id":"msg_1","item_id":"msg_1","delta":"!"}`,
	`{"type":"response.output_text.delta","type":"x","item_id":"msg_1"}`,
	`{"type":"response.output_text.delta"}`,
	`{"type":"response.output_text.delta","ItemID":"msg_1"}`,
	`{"type":"response.function_call_arguments.delta","delta":"{\"a\":","item_id":"fc_1","obfuscation":"2HXW","output_index":1,"sequence_number":5}`,
	`{"type":"response.function_call_arguments.delta","delta":"1}","item_id":"fc_1","obfuscation":"k","output_index":1,"sequence_number":6}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"a\":"}`,
	`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"**Plan**"}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"a\": 1}","sequence_number":9}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"a\": 1}\u00e9","sequence_number":10}`,
	`{"type":"response.output_text.done","item_id":"msg_1","output_index":1,"content_index":0,"text":"Hi","logprobs":[],"refusal":null}`,
	`{"type":"response.output_item.done","sequence_number":12,"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"a\": 1}","call_id":"call_1","name":"get_weather"}}`,
	`{"type":"response.output_item.done","sequence_number":12,"output_index":2,"item":{"id":"fc_1","type":"function_call","arguments":"{\"a\": 1}"x,"name":"get_weather"}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","encrypted_content":"gAAA","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"b"}],"content":null}}`,
	`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Hi"},{"type":"refusal","refusal":"no"}],"role":"assistant"}}`,
	`{"type":"response.completed","sequence_number":30,"response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"model":"gpt-4.1","output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi"}]},{"id":"fc_1","type":"function_call","arguments":"{\"a\": 1}"}],"tools":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":2},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}}`,
	`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-4.1","output":[],"usage":null}}`,
}

// FuzzResponsesFastEvent holds the event fast path to encoding/json:
// whatever it reads, the full decoder reads the same, read first in a
// stream and read after an earlier event, prev, and after itself — what
// the fast path remembers from one event (the item id, a long string it
// finds again by its bytes) must read the next exactly as reading it
// afresh does. Every
// string is remembered too (longString lowered), not only long ones.
func FuzzResponsesFastEvent(f *testing.F) {
	long := `{\"location\":\"` + strings.Repeat("Oslo, Norway; ", 30) + `\"}`
	seeds := append([]string(nil), respEventSeeds...)
	seeds = append(seeds,
		`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"`+long+`","sequence_number":9}`,
		`{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"`+long+`","call_id":"call_1","name":"weather"},"output_index":1}`,
		`{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","arguments":"`+long+`\"}"},"output_index":1}`,
		`{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","arguments":"`+long[:len(long)-2]+`"},"output_index":1}`,
	)
	for _, prev := range seeds {
		for _, data := range seeds {
			f.Add([]byte(prev), []byte(data))
		}
	}
	f.Fuzz(func(t *testing.T, prev, data []byte) {
		defer func(n int) { longString = n }(longString)
		for _, n := range []int{longString, 2} {
			longString = n
			var fast respFast
			checkRespEvent(t, &fast, data)
			fast = respFast{}
			checkRespEvent(t, &fast, prev)
			checkRespEvent(t, &fast, data)
			checkRespEvent(t, &fast, data)
		}
	})
}

// checkRespEvent reads data with fast, which may have read earlier
// events, and fails t when the fast path reads it otherwise than
// encoding/json does.
func checkRespEvent(t *testing.T, fast *respFast, data []byte) {
	t.Helper()
	var got respEvent
	if !fast.decode([]byte("response.output_text.delta"), data, &got) {
		return
	}
	var want respEvent
	var js driver.EventDecoder
	if err := js.Decode(data, &want); err != nil {
		t.Fatalf("the fast path reads %q, encoding/json fails: %v", data, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: the fast path reads otherwise (-encoding/json +fast):\n%s", data, diff)
	}
}

// TestResponsesFastPathTaken checks that the fast path reads the recorded
// delta events.
func TestResponsesFastPathTaken(t *testing.T) {
	taken, deltas := 0, 0
	for _, body := range recordedStreams(t, "openai-responses") {
		r := driver.NewSSEReader(bytes.NewReader(body))
		var fast respFast
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			data := bytes.TrimSpace(ev.Data)
			typ := peekType(data)
			if !fastType(typ) {
				continue
			}
			deltas++
			var e respEvent
			if fast.decode(typ, data, &e) {
				taken++
			}
		}
	}
	if deltas == 0 || taken*10 < deltas*9 {
		t.Fatalf("the fast path reads %d of %d recorded delta events, want 90%%", taken, deltas)
	}
}

// TestResponsesFlatTaken checks that flat reads the recorded delta
// events (the walk is its fallback), so that the fuzz targets compare
// it, and declines what it must leave to the walk.
func TestResponsesFlatTaken(t *testing.T) {
	taken, deltas := 0, 0
	for _, body := range recordedStreams(t, "openai-responses") {
		r := driver.NewSSEReader(bytes.NewReader(body))
		var fast respFast
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			data := bytes.TrimSpace(ev.Data)
			typ := peekType(data)
			if !fastType(typ) || !bytes.HasSuffix(typ, []byte(".delta")) {
				continue
			}
			deltas++
			var e respEvent
			if fast.flat(typ, data, &e) {
				taken++
			}
		}
	}
	if deltas == 0 || taken*10 < deltas*9 {
		t.Fatalf("flat reads %d of %d recorded delta events, want 90%%", taken, deltas)
	}
	typ := []byte("response.output_text.delta")
	for _, data := range []string{
		`{"type":"response.output_text.delta","delta":"a","delta":"b"}`,
		`{"type":"response.output_text.delta","Delta":"a"}`,
		`{"type":"response.output_text.delta","delta" :"a"}`,
		`{"type":"response.output_text.delta","item":{}}`,
		`{"type":"response.output_text.delta","type":"x"}`,
		`{"type":"response.output_text.done","delta":"a"}`,
		` {"type":"response.output_text.delta","delta":"a"}`,
	} {
		var fast respFast
		var e respEvent
		if fast.flat(typ, []byte(data), &e) {
			t.Errorf("flat reads %s", data)
		}
	}
}

// TestChatFastUsage checks that the fast path reads the usage chunk that
// ends a stream (no choice, the counts and their details), and declines
// a count it cannot hold exactly.
func TestChatFastUsage(t *testing.T) {
	var fast chatFast
	var c chatChunk
	data := []byte(`{"id":"x","choices":[],"usage":{"prompt_tokens":53,"completion_tokens":15,"total_tokens":70,"prompt_tokens_details":{"cached_tokens":3,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2,"audio_tokens":0}},"obfuscation":"k"}`)
	if !fast.decode(data, &c) {
		t.Fatal("the fast path declines the usage chunk")
	}
	if c.Usage == nil || len(c.Choices) != 0 || c.Choices == nil {
		t.Fatalf("usage %v, choices %#v", c.Usage, c.Choices)
	}
	want := canonical.TokenUsage{InputTokens: 50, CachedInputTokens: 3, OutputTokens: 17, ReasoningTokens: 2}
	if got := c.Usage.canonical(); got != want {
		t.Fatalf("usage %+v, want %+v", got, want)
	}
	if fast.decode([]byte(`{"choices":[],"usage":{"prompt_tokens":12345678901}}`), &c) {
		t.Fatal("the fast path reads a count of eleven digits")
	}
}

// TestResponsesFastRestated checks that the fast path finds a long
// argument string restated by its bytes (the same string, not a second
// copy), through the three events that state it, and remembers only a
// plain item id as one to compare bytes with.
func TestResponsesFastRestated(t *testing.T) {
	args := `{\"location\":\"` + strings.Repeat("Oslo, Norway; ", 30) + `\"}`
	events := []string{
		`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"` + args + `","sequence_number":9}`,
		`{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"` + args + `","call_id":"call_1","name":"weather"},"output_index":1,"sequence_number":10}`,
		`{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-4.1","output":[{"id":"fc_1","type":"function_call","arguments":"` + args + `"}],"usage":null},"sequence_number":11}`,
	}
	var fast respFast
	var got []string
	for _, e := range events {
		var ev respEvent
		if !fast.decode(peekType([]byte(e)), []byte(e), &ev) {
			t.Fatalf("the fast path declines %.80s…", e)
		}
		switch {
		case ev.Arguments != "":
			got = append(got, ev.Arguments)
		case ev.Item != nil:
			got = append(got, ev.Item.Arguments)
		case ev.Response != nil && len(ev.Response.Output) == 1:
			got = append(got, ev.Response.Output[0].Arguments)
		}
	}
	want := strings.ReplaceAll(args, `\"`, `"`)
	if len(got) != 3 || got[0] != want || got[1] != want || got[2] != want {
		t.Fatalf("arguments %q, want %q three times", got, want)
	}
	if unsafe.StringData(got[1]) != unsafe.StringData(got[0]) || unsafe.StringData(got[2]) != unsafe.StringData(got[0]) {
		t.Error("the restated arguments were decoded again, not found by their bytes")
	}

	for _, c := range []struct {
		id    string
		plain bool
	}{{`"fc_1"`, true}, {`"fc_\u0031"`, false}, {`"fc_` + "\xff" + `"`, false}, {`"fc_é"`, true}} {
		fast := respFast{}
		var ev respEvent
		data := `{"type":"response.function_call_arguments.delta","delta":"x","item_id":` + c.id + `}`
		if !fast.decode(peekType([]byte(data)), []byte(data), &ev) {
			t.Fatalf("the fast path declines %s", data)
		}
		if fast.itemPlain != c.plain {
			t.Errorf("item id %s: remembered as plain %v, want %v", c.id, fast.itemPlain, c.plain)
		}
	}
}
