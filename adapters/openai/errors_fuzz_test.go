package openai

import (
	"net/http"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/internal/wire"
)

// FuzzClassify feeds any status, body and retry headers to ClassifyChat
// (both dialects' table): the result is always a classified error with
// the status kept (adaptertest.CheckClassified). Then the round trip:
// each kind of failure rendered as Chat Completions and as the Responses
// API render it (internal/wire) with a fuzzed message reads back with
// that message.
func FuzzClassify(f *testing.F) {
	f.Add(uint16(429), []byte(`{"error":{"message":"Rate limit reached. Please try again in 1.898s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`), "", "", uint8(2), "Please try again in 20ms")
	f.Add(uint16(400), []byte(`{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`), "", "", uint8(5), "maximum context length")
	f.Add(uint16(404), []byte(`[{"error":{"code":404,"message":"The model x does not exist"}}]`), "", "", uint8(6), "The model `gpt-nope` does not exist")
	f.Add(uint16(503), []byte(`{"object":"error","message":"m","type":"BadRequestError","code":503}`), "2500", "7", uint8(3), "try again in 1e400s")
	f.Add(uint16(200), []byte(`{"error":"x"}`), "NaN", "Wed, 21 Oct 2015 07:28:00 GMT", uint8(0), "insufficient_quota")
	f.Add(uint16(0), []byte(`null`), "", "", uint8(1), "\u2028")
	f.Fuzz(func(t *testing.T, code uint16, body []byte, ms, ra string, kind uint8, message string) {
		h := http.Header{}
		if ms != "" {
			h.Set("retry-after-ms", ms)
		}
		if ra != "" {
			h.Set("Retry-After", ra)
		}
		adaptertest.CheckClassified(t, ClassifyChat, adaptertest.FuzzStatus(code), h, body)
		message, ok := adaptertest.FuzzMessage(message)
		if !ok {
			return
		}
		for _, api := range []wire.API{wire.OpenAIChat, wire.OpenAIResponses} {
			e := wire.ErrorFor(api, wire.Kinds[int(kind)%len(wire.Kinds)], "gpt-5")
			e.Message = message
			adaptertest.CheckReadsBack(t, ClassifyChat, e.Status, e.Header(api), e.Body(api), message)
		}
	})
}
