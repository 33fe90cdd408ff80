package bedrock

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/internal/wire"
)

// FuzzClassify feeds any status, x-amzn-ErrorType and body to Bedrock's
// exception table, and any exception type and payload to the one of
// stream exception frames: each result is a classified error
// (adaptertest.CheckClassified, adaptertest.Unclassified), the HTTP one
// with the status kept. An exception's name counts in any ASCII case and
// without what follows its ":", so the same name upper-cased with the
// coral suffix is the same class and code. And each kind of failure
// rendered as Bedrock renders it (internal/wire) with a fuzzed message
// reads back with that message, by header and body as by a stream's
// exception frame named the same way.
func FuzzClassify(f *testing.F) {
	f.Add(uint16(429), "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", []byte(`{"message":"Too many requests"}`), uint8(2), "slow down")
	f.Add(uint16(424), "ModelErrorException", []byte(`{"message":"Received error from model","originalStatusCode":529,"originalMessage":"Overloaded"}`), uint8(3), "Overloaded")
	f.Add(uint16(400), "", []byte(`{"__type":"ValidationException","Message":"Input is too long for requested model."}`), uint8(5), "too long")
	f.Add(uint16(400), "validationException", []byte(`{"message":"The provided model identifier is invalid."}`), uint8(6), "model identifier is invalid")
	f.Add(uint16(0), "modelStreamErrorException", []byte(`not json`), uint8(0), " ")
	f.Add(uint16(503), "ſervicequotaexceededexception", []byte(`{"originalStatusCode":-1}`), uint8(4), "\xff")
	classify := (&provider{}).Classify
	f.Fuzz(func(t *testing.T, code uint16, typ string, body []byte, kind uint8, message string) {
		status := adaptertest.FuzzStatus(code)
		adaptertest.CheckClassified(t, classify, status, http.Header{"X-Amzn-Errortype": {typ}}, body)
		if why := adaptertest.Unclassified(ExceptionError("bedrock", typ, body)); why != "" {
			t.Fatalf("exception frame %q %q: %s", typ, body, why)
		}
		if isASCII(typ) {
			var e exception
			_ = json.Unmarshal(body, &e)
			a := classifyException(status, typ, &e)
			b := classifyException(status, strings.ToUpper(typ)+":http://internal.amazon.com/coral/com.amazon.bedrock/", &e)
			if a.Class != b.Class || a.Code != b.Code {
				t.Fatalf("%q is %s/%s, but upper-cased with a suffix %s/%s", typ, a.Class, a.Code, b.Class, b.Code)
			}
		}
		message, ok := adaptertest.FuzzMessage(message)
		if !ok {
			return
		}
		e := wire.ErrorFor(wire.Bedrock, wire.Kinds[int(kind)%len(wire.Kinds)], "anthropic.claude-sonnet-4-5")
		e.Message = message
		adaptertest.CheckReadsBack(t, classify, e.Status, e.Header(wire.Bedrock), e.Body(wire.Bedrock), message)
		payload, _ := json.Marshal(map[string]string{"message": message})
		if got := ExceptionError("bedrock", strings.ToLower(e.Type[:1])+e.Type[1:], payload); !strings.Contains(got.Message, message) {
			t.Fatalf("exception frame %s with message %q: read back as %q", e.Type, message, got.Message)
		}
	})
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
