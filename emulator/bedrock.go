package emulator

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/metis-llm/metis/internal/sigv4"
	"github.com/metis-llm/metis/internal/wire"
)

// BedrockAnthropicVersion is the anthropic_version Bedrock's Claude
// bodies must carry.
const BedrockAnthropicVersion = "bedrock-2023-05-31"

// serveBedrock answers InvokeModel and InvokeModelWithResponseStream. m is
// the route's match on the escaped path: model id, operation. A request
// is signed with SigV4 — access key id and secret both the emulator's
// key, checked by signing it again with the AWS SDK's signer for the host
// it came to or the region's Bedrock host — or carries the key as a
// Bedrock API key (Authorization: Bearer). The body must carry
// anthropic_version bedrock-2023-05-31 and neither model nor stream.
// Failures are Bedrock's (x-amzn-ErrorType and {"message"}); a stream is
// application/vnd.amazon.eventstream, each Messages event a chunk frame
// {"bytes": base64, "p": padding}, an error event an exception frame.
func (s *Server) serveBedrock(w http.ResponseWriter, r *http.Request, body []byte, m []string) {
	model, err := url.PathUnescape(m[1])
	if err != nil {
		writePlainError(w, http.StatusBadRequest, "emulator: bad model id: "+err.Error())
		return
	}
	stream := m[2] == "invoke-with-response-stream"
	fail := func(kind wire.Kind, msg string) {
		errorFor(API(wire.Bedrock), kind, msg, model, s.reserve(1).id("req_emu_")).write(w)
	}
	if !s.cfg.noAuth {
		if kind, msg := s.bedrockAuth(r, body); kind != "" {
			fail(kind, msg)
			return
		}
	}
	fields, err := objectFields(body)
	if err != nil {
		fail(ErrorInvalidRequest, "Malformed input request: "+err.Error()+", please reformat your input and try again.")
		return
	}
	for _, k := range []string{"model", "stream"} {
		if fields[k] != nil {
			fail(ErrorInvalidRequest, fmt.Sprintf("Malformed input request: #: extraneous key [%s] is not permitted, please reformat your input and try again.", k))
			return
		}
	}
	if string(fields["anthropic_version"]) != `"`+BedrockAnthropicVersion+`"` {
		fail(ErrorInvalidRequest, "Malformed input request: #: required key [anthropic_version] not found or invalid, please reformat your input and try again.")
		return
	}
	// The Messages body names the model as Anthropic does; Bedrock's
	// messages report that name (claude-sonnet-4-5-20250929), not the id.
	rec, reqID, ok := s.bedrockMessages(w, r, wire.Bedrock, model, setFields(body, map[string]any{"model": bedrockClaudeName(model), "stream": stream}, "anthropic_version"))
	if !ok {
		return
	}
	w.Header().Set("X-Amzn-Requestid", reqID)
	if !stream {
		body := bedrockClaude.body(rec.Body.Bytes())
		w.Header().Set("Content-Type", "application/json")
		bedrockTokenHeaders(w.Header(), body)
		w.WriteHeader(http.StatusOK)
		w.Write(body) //nolint:errcheck
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("X-Amzn-Bedrock-Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(bedrockFrames(bedrockClaude.events(splitSSE(rec.Body.Bytes())), model)) //nolint:errcheck
}

// bedrockMessages has the Anthropic handler answer a Bedrock request
// (api: InvokeModel's or Converse's) rewritten into the Messages body
// messages, authorized with the emulator's key. It returns the captured
// answer and the request id to send; when the answer is a failure it
// writes it as api's (x-amzn-ErrorType, {"message"}) and reports false.
func (s *Server) bedrockMessages(w http.ResponseWriter, r *http.Request, api wire.API, model string, messages []byte) (*httptest.ResponseRecorder, string, bool) {
	h := r.Header.Clone()
	h.Del("Authorization")
	h.Set("X-Api-Key", s.cfg.apiKey)
	if s.cfg.apiKey == "" {
		h.Set("X-Api-Key", "emulator")
	}
	h.Set("Anthropic-Version", "2023-06-01")
	h.Set("Content-Type", "application/json")
	rec := vendor(r, "/v1/messages", h, messages, s.serveAnthropic)
	reqID := s.reserve(1).id("req_emu_")
	if rec.Code != http.StatusOK {
		e := wire.ErrorFor(api, wire.KindForStatus(rec.Code), model)
		if msg := errorMessage(rec.Body.Bytes()); msg != "" {
			e.Message = msg
		}
		e.RequestID = reqID
		render(API(api), e).write(w)
		return nil, "", false
	}
	return rec, reqID, true
}

// bedrockTokenHeaders repeats an InvokeModel answer's usage in the
// headers Bedrock adds (x-amzn-bedrock-input-token-count and the rest).
func bedrockTokenHeaders(h http.Header, body []byte) {
	var m struct {
		Usage struct {
			InputTokens          int `json:"input_tokens"`
			OutputTokens         int `json:"output_tokens"`
			CacheReadInputTokens int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &m) != nil {
		return
	}
	h.Set("X-Amzn-Bedrock-Input-Token-Count", strconv.Itoa(m.Usage.InputTokens))
	h.Set("X-Amzn-Bedrock-Output-Token-Count", strconv.Itoa(m.Usage.OutputTokens))
	h.Set("X-Amzn-Bedrock-Cache-Read-Input-Token-Count", strconv.Itoa(m.Usage.CacheReadInputTokens))
	h.Set("X-Amzn-Bedrock-Invocation-Latency", "120")
}

// bedrockAuth checks the request's credentials; it returns the kind of
// failure and its message, or "" when they are good.
func (s *Server) bedrockAuth(r *http.Request, body []byte) (wire.Kind, string) {
	auth := r.Header.Get("Authorization")
	switch {
	case auth == "":
		return errorMissingKey, ""
	case bearer(r) != "":
		if s.cfg.apiKey != "" && bearer(r) != s.cfg.apiKey {
			return ErrorAuth, ""
		}
		return "", ""
	}
	a, err := sigv4.Parse(auth)
	if err != nil {
		return errorMissingKey, "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters."
	}
	// AWS refuses a signature scoped to another region or service than the
	// endpoint's (InvalidSignatureException, 403): a request to
	// bedrock-runtime.eu-west-3.amazonaws.com signed for us-east-1 fails.
	if host, ok := strings.CutSuffix(hostOnly(r.Host), ".amazonaws.com"); ok {
		if region, ok := strings.CutPrefix(host, "bedrock-runtime."); ok && region != a.Region {
			return ErrorAuth, fmt.Sprintf("Credential should be scoped to a valid region, not '%s'.", a.Region)
		}
	}
	if a.Service != "bedrock" {
		return ErrorAuth, fmt.Sprintf("Credential should be scoped to correct service: 'bedrock', not '%s'.", a.Service)
	}
	key := s.cfg.apiKey
	secret := func(id string) (string, bool) { return key, key == "" || id == key }
	if key == "" {
		secret = func(id string) (string, bool) { return id, true }
	}
	if _, err := sigv4.Verify(r, body, secret, r.Host, "bedrock-runtime."+a.Region+".amazonaws.com"); err != nil {
		if strings.Contains(err.Error(), "unknown access key") {
			return ErrorAuth, ""
		}
		return ErrorAuth, "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	}
	return "", ""
}

// bedrockFrames re-frames a Messages stream as Bedrock does: each event's
// JSON (compacted) base64 in a chunk frame with padding (bedrockClaude
// has reshaped the events),
// invocation metrics added to message_stop, an error event an exception
// frame that ends the stream.
func bedrockFrames(events []sseEvent, model string) []byte {
	var out bytes.Buffer
	var in, outTokens int
	for i, ev := range events {
		var head struct {
			Type    string `json:"type"`
			Message struct {
				Usage struct {
					InputTokens int `json:"input_tokens"`
				} `json:"usage"`
			} `json:"message"`
			Usage struct {
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(ev.data, &head)
		switch head.Type {
		case "message_start":
			in = head.Message.Usage.InputTokens
		case "message_delta":
			outTokens = head.Usage.OutputTokens
		case "error":
			out.Write(bedrockStreamError(wire.Bedrock, head.Error.Type, head.Error.Message, model))
			return out.Bytes()
		}
		data := ev.data
		if head.Type == "message_stop" {
			data = jsonEdit(data, func(v map[string]any) {
				v["amazon-bedrock-invocationMetrics"] = map[string]int{"inputTokenCount": in, "outputTokenCount": outTokens, "invocationLatency": 120, "firstByteLatency": 40}
			})
		}
		var compact bytes.Buffer
		if json.Compact(&compact, data) == nil {
			data = compact.Bytes()
		}
		payload := marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data), "p": bedrockPadding[:1+(i*7)%len(bedrockPadding)]})
		out.Write(wire.BedrockFrame(eventstream.Headers{
			{Name: ":event-type", Value: eventstream.StringValue("chunk")},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			{Name: ":message-type", Value: eventstream.StringValue("event")},
		}, payload))
	}
	return out.Bytes()
}

// bedrockPadding is what Bedrock's "p" field holds, cut to a length that
// varies from chunk to chunk.
const bedrockPadding = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// bedrockClaudeName is the Anthropic name of a Bedrock model id: the
// geography and provider prefixes and the -v1:0 version go
// (us.anthropic.claude-sonnet-4-5-20250929-v1:0 → claude-sonnet-4-5-20250929).
func bedrockClaudeName(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	if i := strings.Index(id, "anthropic."); i >= 0 {
		id = id[i+len("anthropic."):]
	}
	if i := strings.LastIndex(id, "-v"); i > 0 && strings.Trim(id[i+2:], "0123456789:") == "" {
		id = id[:i]
	}
	return id
}

// bedrockStreamError is the exception frame api (one of Bedrock's) ends
// a stream with for a Messages error event of type typ (overloaded_error,
// rate_limit_error, ...) with message.
func bedrockStreamError(api wire.API, typ, message, model string) []byte {
	kind := wire.Server
	switch typ {
	case "overloaded_error":
		kind = wire.Overloaded
	case "rate_limit_error":
		kind = wire.RateLimit
	case "invalid_request_error":
		kind = wire.InvalidRequest
	}
	e := wire.ErrorFor(api, kind, model)
	if message != "" {
		e.Message = message
	}
	return e.Event(api, nil)
}

// hostOnly is a Host header without its port.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}
