package openai

import (
	"bytes"
	"encoding/json"
	"io"
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
		fast, full := decodeBoth(d.DecodeStream, body)
		if diff := cmp.Diff(full, fast, toolIDs); diff != "" {
			t.Fatalf("the fast path changes the outcome (-full +fast):\n%s", diff)
		}
	})
}

// FuzzResponsesFastEvent holds the event fast path to encoding/json.
func FuzzResponsesFastEvent(f *testing.F) {
	f.Add([]byte(`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi \"there\"\n","logprobs":[],"obfuscation":"x"}`))
	f.Add([]byte(`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"a\":"}`))
	f.Add([]byte(`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"**Plan**"}`))
	f.Add([]byte(`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"a\": 1}","sequence_number":9}`))
	f.Add([]byte(`{"type":"response.output_text.done","item_id":"msg_1","output_index":1,"content_index":0,"text":"Hi","logprobs":[],"refusal":null}`))
	f.Add([]byte(`{"type":"response.output_item.done","sequence_number":12,"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"city\": \"Oslo\"}","call_id":"call_1","name":"get_weather"}}`))
	f.Add([]byte(`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","encrypted_content":"gAAA","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"b"}],"content":null}}`))
	f.Add([]byte(`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Hi"},{"type":"refusal","refusal":"no"}],"role":"assistant"}}`))
	f.Add([]byte(`{"type":"response.completed","sequence_number":30,"response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"model":"gpt-4.1","output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi"}]}],"tools":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":2},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}}`))
	f.Add([]byte(`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-4.1","output":[],"usage":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast respFast
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
	})
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
