package bedrock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// FuzzDecodeStream feeds arbitrary bytes to the event-stream decoder: it
// must never panic or hang, every stream must keep the invariants
// (message.complete last), and a stream that fails must say why. A body
// that starts (after a byte-order mark and white space) with '{', '[' or
// '<' is a document, not an event stream: the driver refuses it before
// the first event (the package doc of adapters/driver), so its stream is
// that error alone, server_error/invalid_response or the error it states.
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
	f.Add([]byte("{"))
	f.Add([]byte("\xef\xbb\xbf\r\n <html>"))
	a := newAdapter(f, "http://127.0.0.1:1", "bedrock:claude-sonnet-4-5", claude)
	f.Fuzz(func(t *testing.T, body []byte) {
		evs, err := adaptertest.Collect(a.StreamBody(ask("bedrock:claude-sonnet-4-5", "", "hi", 0), bytes.NewReader(body)))
		if isDocument(body) {
			if len(evs) != 0 {
				t.Fatalf("a document body yielded %d events, want none", len(evs))
			}
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) || ae.Class == "" {
				t.Fatalf("a document body yielded %v, want a classified error", err)
			}
			return
		}
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

// isDocument reports whether body's first byte after a byte-order mark
// and white space, within its first 512 bytes (what the driver sniffs),
// opens a JSON, HTML or XML document.
func isDocument(body []byte) bool {
	b := body[:min(len(body), 512)]
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[' || b[0] == '<')
}
