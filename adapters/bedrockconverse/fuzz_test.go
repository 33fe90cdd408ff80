package bedrockconverse

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// FuzzDecodeStream feeds arbitrary bytes to the ConverseStream decoder:
// it must never panic or hang, every stream must keep the invariants
// (message.complete last), and a stream that fails must say why.
func FuzzDecodeStream(f *testing.F) {
	for _, name := range []string{"bedrock-converse-stream-tool-use"} {
		f.Add(adaptertest.ReadRecording(f, "bedrock-converse", name).Response)
	}
	f.Add(stream(event(f, "messageStart", `{"role":"assistant"}`),
		event(f, "contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}`),
		event(f, "contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":"}}}`),
		event(f, "contentBlockStop", `{"contentBlockIndex":1}`),
		event(f, "messageStop", `{"stopReason":"tool_use"}`),
		event(f, "metadata", `{"usage":{"inputTokens":1}}`)))
	f.Add(stream(event(f, "messageStart", `{}`), exception(f, "modelStreamErrorException", `{"message":"x","originalStatusCode":529}`)))
	huge := make([]byte, 12)
	binary.BigEndian.PutUint32(huge, 0xffffffff)
	f.Add(huge)
	f.Add([]byte{})
	a := newAdapter(f, "http://127.0.0.1:1", "us-east-1", model, claude)
	f.Fuzz(func(t *testing.T, body []byte) {
		evs, err := adaptertest.Collect(a.StreamBody(ask(model, "hi"), bytes.NewReader(body)))
		if findings := streamcheck.Check(evs); len(findings) > 0 {
			t.Fatalf("invariants broken: %v", findings)
		}
		if len(evs) == 0 {
			// A body that looks like a document ("{", "<") fails before
			// the first event.
			if err == nil {
				t.Fatal("a stream with no event yielded no error")
			}
			return
		}
		resp := adaptertest.Final(t, evs)
		if resp.StopReason == canonical.StopError && err == nil {
			t.Fatal("a stream that ended in error yielded no error")
		}
		if resp.StopReason != canonical.StopError && err != nil {
			t.Fatalf("a finished stream also yielded %v", err)
		}
	})
}

// FuzzDecodeBody: any body decodes to a response or an error, never a
// panic.
func FuzzDecodeBody(f *testing.F) {
	f.Add(adaptertest.ReadRecording(f, "bedrock-converse", "bedrock-converse-nonstream-tool-use").Response)
	f.Add([]byte(`{"output":{"message":{"content":[{"reasoningContent":{"redactedContent":"eA=="}}]}}}`))
	a := newAdapter(f, "http://127.0.0.1:1", "us-east-1", model, claude)
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := a.CompleteBody(ask(model, "hi"), body)
		if (resp == nil) == (err == nil) {
			t.Fatalf("want a response or an error, got %v and %v", resp, err)
		}
	})
}
