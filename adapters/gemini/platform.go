package gemini

import (
	"io"
	"net/http"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// This file exports the generateContent mapping for platforms that serve
// Gemini models on their own paths and credentials (Vertex AI's
// publishers/google/models/{model}:generateContent): the same request
// body, decoders, thought-signature handling and error table as this
// adapter's, shared rather than copied.

// BodyOptions are what a platform adds to the generateContent body.
type BodyOptions struct {
	// StreamFunctionCallArguments asks, on a streamed call with tools,
	// for each call's arguments in pieces as the model writes them
	// (toolConfig.functionCallingConfig.streamFunctionCallArguments,
	// Vertex AI only, Gemini 3 models): partialArgs with JSON paths and
	// willContinue, which the stream decoder assembles (partial.go).
	StreamFunctionCallArguments bool
}

// EncodeBody returns the generateContent body of call c (the package
// doc's request mapping) with o's additions. wire is the model's name
// on the wire.
func EncodeBody(c *driver.Call, wire string, o BodyOptions) ([]byte, error) {
	body, err := newRequest(c, wireModel(wire))
	if err != nil {
		return nil, err
	}
	if o.StreamFunctionCallArguments && c.Stream && len(body.Tools) > 0 {
		if body.ToolConfig == nil {
			body.ToolConfig = &toolConfig{}
		}
		body.ToolConfig.FunctionCallingConfig.StreamFunctionCallArguments = true
	}
	return encodeRequest(body)
}

// DecodeBody decodes a generateContent answer (Provider.DecodeBody).
// Fields the decoder does not know — Vertex AI's createTime and
// trafficType — are ignored; modelVersion is Response.ServedModel.
func DecodeBody(body []byte, a *driver.Assembler) error { return decodeBody(body, a) }

// DecodeStream decodes a streamGenerateContent?alt=sse answer
// (Provider.DecodeStream).
func DecodeStream(body io.Reader, a *driver.Assembler) error { return decodeStream(body, a) }

// Classify maps a non-2xx google.rpc.Status answer to an AdapterError
// with the table of errors.go.
func Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return classify(status, h, body)
}

// Capabilities returns this package's declaration for a Gemini model by
// its wire name (capabilities.go).
func Capabilities(wire string) canonical.Capabilities {
	return capabilitiesFor(wireModel(wire))
}

// Estimator is this package's token-estimate tuning, for platforms that
// serve the same models.
var Estimator = estimator
