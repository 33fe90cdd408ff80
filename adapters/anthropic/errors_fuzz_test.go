package anthropic

import (
	"net/http"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/internal/wire"
)

// FuzzClassify feeds any status and body to the error table: the result
// is always a classified error with the status kept
// (adaptertest.CheckClassified). Then the round trip: each kind of
// failure rendered as the Messages API renders it (internal/wire) with a
// fuzzed message reads back with that message; for the kinds the error
// type alone decides (auth, rate limit, overloaded, server), with the
// class the kind's own message gets, whatever the message says.
func FuzzClassify(f *testing.F) {
	f.Add(uint16(529), []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), uint8(3), "Overloaded")
	f.Add(uint16(400), []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`), uint8(0), "prompt is too long")
	f.Add(uint16(408), []byte(`{"type":"error","error":{"type":"api_error","message":"x"}}`), uint8(4), "Request timed out")
	f.Add(uint16(401), []byte(`{"error":null}`), uint8(1), "invalid x-api-key")
	f.Add(uint16(500), []byte(`<html>502</html>`), uint8(5), "model: claude-nope")
	f.Add(uint16(0), []byte(``), uint8(6), " ")
	typeDecides := map[wire.Kind]bool{wire.Auth: true, wire.RateLimit: true, wire.Overloaded: true, wire.Server: true}
	f.Fuzz(func(t *testing.T, code uint16, body []byte, kind uint8, message string) {
		adaptertest.CheckClassified(t, classify, adaptertest.FuzzStatus(code), http.Header{}, body)
		message, ok := adaptertest.FuzzMessage(message)
		if !ok {
			return
		}
		k := wire.Kinds[int(kind)%len(wire.Kinds)]
		e := wire.ErrorFor(wire.Anthropic, k, "claude-sonnet-4-6")
		plain := classify(e.Status, e.Header(wire.Anthropic), e.Body(wire.Anthropic))
		e.Message = message
		got := adaptertest.CheckReadsBack(t, classify, e.Status, e.Header(wire.Anthropic), e.Body(wire.Anthropic), message)
		if typeDecides[k] && got.Class != plain.Class {
			t.Fatalf("%s with message %q: class %s, but %s with its own message", k, message, got.Class, plain.Class)
		}
	})
}
