package openai

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// maxSeed bounds the fixture seeds: larger bodies (the regular tests
// decode them) slow every mutation down for little new coverage.
const maxSeed = 64 << 10

// addFixtureSeeds adds the recorded bodies of api as seeds, when the
// shared fixtures are present.
func addFixtureSeeds(f *testing.F, api string) {
	dir, err := adaptertest.FixturesRoot(api)
	if err != nil {
		return
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "response.*"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) <= maxSeed {
			f.Add(b)
		}
	}
}

// fuzzDecoders runs the stream decoder and the body decoder of a dialect
// on arbitrary bytes: neither may panic, and a stream that finishes must
// keep the 000 §5.2 invariants.
func fuzzDecoders(t *testing.T, data []byte, stream func(io.Reader, *driver.Assembler) error, body func([]byte, *driver.Assembler) error) {
	r := runDecoder(stream, data, nil)
	if r.resp != nil {
		if f := streamFindings(r); len(f) > 0 {
			t.Fatalf("invariant broken: %v", f)
		}
		if r.err != nil {
			t.Fatalf("finished and failed: %v", r.err)
		}
	}
	b := runBody(body, data, nil)
	if b.err == nil && b.resp == nil {
		t.Fatalf("body decoder neither finished nor failed")
	}
	if b.err != nil {
		if _, ok := b.err.(*canonical.AdapterError); !ok {
			t.Fatalf("body error is %T, not an AdapterError", b.err)
		}
	}
}

func FuzzResponsesStream(f *testing.F) {
	addFixtureSeeds(f, "openai-responses")
	f.Add(rsse(rCreated, rMsgAdded, rDelta, rMsgDone, rCompleted))
	if b, err := os.ReadFile(filepath.Join("testdata", "responses_reasoning_items.sse")); err == nil {
		f.Add(b)
	}
	f.Add(rsse(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_a","type":"function_call","call_id":"call_a","name":"f","arguments":""}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_b","type":"function_call","call_id":"call_b","name":"g","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"b\":1}"}`,
		`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":1}"}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_b","type":"function_call","call_id":"call_b","name":"g","arguments":"{\"b\":1}"}}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_a","type":"function_call","call_id":"call_a","name":"f","arguments":"{\"a\":1}"}}`,
		`{"type":"response.completed","response":{"status":"completed","output":[]}}`))
	d := responsesDialect{provider: "openai", reasoning: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoders(t, data, d.DecodeStream, d.DecodeBody)
	})
}

func FuzzChatStream(f *testing.F) {
	addFixtureSeeds(f, "openai-chat")
	f.Add(sse(chatRole, chatHello, chatStop, chatUsage1, "[DONE]"))
	f.Add(chatChunks(
		`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"a\":"}},{"index":1,"id":"call_b","type":"function","function":{"name":"g","arguments":"{\"b\":"}}]}`,
		`{"tool_calls":[{"index":1,"function":{"arguments":"2}"}},{"index":0,"function":{"arguments":"1}"}}]}`,
		"finish:tool_calls"))
	f.Add(chatChunks(
		`{"reasoning_details":[{"type":"reasoning.text","text":"a","format":"anthropic-claude-v1","index":0}]}`,
		`{"reasoning_details":[{"type":"reasoning.text","text":"b","index":0},{"type":"reasoning.text","signature":"c2ln","index":0}]}`,
		`{"reasoning_details":[{"type":"reasoning.encrypted","data":"ZW5j","id":"rs_1","index":1},{"type":"reasoning.summary","summary":"s"}]}`,
		"finish:stop"))
	d := ChatDialect{Provider: "openai", ReasoningFields: []string{"reasoning_content", "reasoning"}, ReasoningDetails: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoders(t, data, d.DecodeStream, d.DecodeBody)
	})
}
