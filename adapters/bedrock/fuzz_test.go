package bedrock

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// FuzzDecodeStream feeds arbitrary bytes to the event-stream decoder: it
// must never panic or hang, every stream must keep the invariants
// (message.complete last), and a stream that fails must say why.
func FuzzDecodeStream(f *testing.F) {
	for _, name := range []string{"bedrock-invoke-stream-text", "bedrock-invoke-stream-claude3-2024-no-padding"} {
		f.Add(adaptertest.ReadRecording(f, "bedrock-anthropic", name).Response)
	}
	f.Add(stream(chunkFrame(f, evStart), chunkFrame(f, evBlock), chunkFrame(f, evDelta), chunkFrame(f, evStop), chunkFrame(f, evMDel), chunkFrame(f, evEnd)))
	f.Add(stream(chunkFrame(f, evStart), exceptionFrame(f, "modelStreamErrorException", `{"message":"x","originalStatusCode":529}`)))
	huge := make([]byte, 12)
	binary.BigEndian.PutUint32(huge, 0xffffffff)
	f.Add(huge)
	f.Add([]byte{})
	a := newAdapter(f, "http://127.0.0.1:1", "bedrock:claude-sonnet-4-5", claude)
	f.Fuzz(func(t *testing.T, body []byte) {
		evs, err := adaptertest.Collect(a.StreamBody(ask("bedrock:claude-sonnet-4-5", "", "hi", 0), bytes.NewReader(body)))
		if findings := streamcheck.Check(evs); len(findings) > 0 {
			t.Fatalf("invariants broken: %v", findings)
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
