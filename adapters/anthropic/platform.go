package anthropic

import (
	"io"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Platform is the Messages API as a cloud platform carries it — Vertex AI
// (rawPredict and streamRawPredict) and Amazon Bedrock (InvokeModel and
// InvokeModelWithResponseStream): this package's request mapping,
// decoders and error table, shared rather than copied, with the
// envelope those platforms change. The platform's URL names the model,
// so the body has no model field; the API version travels in the body as
// anthropic_version. Everything between — roles, tool results, images,
// thinking and its signatures, output_schema's forced tool, stop
// reasons, usage — is the package doc's.
type Platform struct {
	// Version is the body's anthropic_version: "vertex-2023-10-16" on
	// Vertex AI, "bedrock-2023-05-31" on Bedrock.
	Version string
	// StreamField sends "stream": true in the body of a streamed call
	// (Vertex AI's streamRawPredict wants it). Bedrock streams by path
	// alone and rejects the field.
	StreamField bool
	// BetaInBody sends betas as the body's anthropic_beta list
	// (Bedrock) rather than the anthropic-beta header (Vertex AI).
	BetaInBody bool
}

// PlatformOptions are the Messages API options a platform adapter
// offers its users, as the Anthropic adapter's: Beta names beta
// features, Cache marks the system prompt and the last tool with
// cache_control.
type PlatformOptions struct {
	Beta  []string
	Cache bool
}

// Encode returns the wire body of c and the headers it needs beyond
// Content-Type (anthropic-beta when betas travel as a header).
func (p Platform) Encode(c *driver.Call, o PlatformOptions) ([]byte, http.Header, error) {
	w := wireRequest{AnthropicVersion: p.Version}
	if p.StreamField && c.Stream {
		stream := true
		w.Stream = &stream
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if len(o.Beta) > 0 {
		if p.BetaInBody {
			w.AnthropicBeta = o.Beta
		} else {
			h.Set("anthropic-beta", strings.Join(o.Beta, ","))
		}
	}
	body, err := encodeBody(c, options{Beta: o.Beta, Cache: o.Cache}, w)
	if err != nil {
		return nil, nil, err
	}
	return body, h, nil
}

// DecodeBody decodes a non-streamed Messages answer (Provider.DecodeBody).
func (p Platform) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return newDecoder(c.Adapter, structured(c)).decodeBody(body, a)
}

// DecodeStream decodes a Messages answer streamed as server-sent events
// (Provider.DecodeStream), as Vertex AI's streamRawPredict sends it.
func (p Platform) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return newDecoder(c.Adapter, structured(c)).decodeStream(body, a)
}

// StreamDecoder decodes a Messages API stream one event at a time, for a
// platform whose framing is not server-sent events (Bedrock's binary
// event stream, whose chunks each carry one event's JSON). It serves one
// call.
type StreamDecoder struct {
	d  *decoder
	st eventState
	n  int
}

// NewStreamDecoder returns the event decoder of call c.
func (p Platform) NewStreamDecoder(c *driver.Call) *StreamDecoder {
	return &StreamDecoder{d: newDecoder(c.Adapter, structured(c))}
}

// Event applies one event's JSON (its "type" says which) to a. It
// reports done after message_stop, or with the error that ends the
// stream: the classified error of an error event, or invalid_response
// for data that does not parse or breaks the protocol. data is not kept.
func (s *StreamDecoder) Event(a *driver.Assembler, data []byte) (done bool, err error) {
	s.n++
	return s.d.event(a, &s.st, s.n, "", data)
}

// Classify maps a non-2xx Messages API error body to an AdapterError,
// with the table of errors.go.
func Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return classify(status, h, body)
}

// Capabilities returns this package's declaration for a Claude model by
// its Anthropic name (claude-sonnet-4-6, ...): the family table of
// capabilities.go. Platforms that name models otherwise (Bedrock's
// anthropic.claude-…-v1:0, Vertex AI's claude-…@date) pass the
// Anthropic name.
func Capabilities(name string) canonical.Capabilities {
	return capabilitiesFor(name)
}

// Estimator is this package's token-estimate tuning, for platforms that
// serve the same models.
var Estimator = estimator
