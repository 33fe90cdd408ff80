package emulator

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"

	"github.com/metis-llm/metis/internal/wire"
)

// The cloud platforms (vertex.go, azure.go, bedrock.go) carry the vendors'
// wire formats on their own paths, credentials and framing. Each platform
// handler checks what the platform checks (its path, its credentials, the
// body's envelope), then has the vendor's handler answer a request
// rewritten into the vendor's form, captured whole, and turns the answer
// into the platform's: its error shapes, its extra fields, its framing.
// Platform answers are therefore written at once rather than event by
// event.

// Platform routes:
//
//	POST /{v1|v1beta1}/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent|streamGenerateContent
//	POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict|streamRawPredict
//	POST /openai/v1/chat/completions, /openai/v1/responses
//	POST /openai/deployments/{d}/chat/completions?api-version=…, /openai/responses?api-version=…
//	POST /model/{id}/invoke, /model/{id}/invoke-with-response-stream
//	POST /model/{id}/converse, /model/{id}/converse-stream (bedrock_converse.go)
var (
	vertexRoute   = regexp.MustCompile(`^/(v1|v1beta1)/projects/([^/]+)/locations/([^/]+)/publishers/(google|anthropic)/models/([^/:]+):([A-Za-z]+)$`)
	azureRoute    = regexp.MustCompile(`^/openai/(?:v1/(chat/completions|responses)|deployments/([^/]+)/(chat/completions)|(responses))$`)
	bedrockRoute  = regexp.MustCompile(`^/model/([^/]+)/(invoke|invoke-with-response-stream)$`)
	converseRoute = regexp.MustCompile(`^/model/([^/]+)/(converse|converse-stream)$`)
)

// isCloudPath reports whether path is a cloud platform's route.
func isCloudPath(path string) bool {
	return vertexRoute.MatchString(path) || azureRoute.MatchString(path) || bedrockRoute.MatchString(path) || converseRoute.MatchString(path)
}

// serveCloud answers a platform route (isCloudPath).
func (s *Server) serveCloud(w http.ResponseWriter, r *http.Request, body []byte) {
	switch p := r.URL.Path; {
	case vertexRoute.MatchString(p):
		s.serveVertex(w, r, body, vertexRoute.FindStringSubmatch(p))
	case azureRoute.MatchString(p):
		s.serveAzure(w, r, body, azureRoute.FindStringSubmatch(p))
	case converseRoute.MatchString(r.URL.EscapedPath()):
		s.serveBedrockConverse(w, r, body, converseRoute.FindStringSubmatch(r.URL.EscapedPath()))
	default:
		s.serveBedrock(w, r, body, bedrockRoute.FindStringSubmatch(r.URL.EscapedPath()))
	}
}

// bearer returns the token of an "Authorization: Bearer" header, or "".
func bearer(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		return strings.TrimSpace(auth[7:])
	}
	return ""
}

// checkKey checks a platform credential against the server's key,
// answering api's failure when it is missing or wrong.
func (s *Server) checkKey(w http.ResponseWriter, api wire.API, key, model string) bool {
	if s.cfg.noAuth {
		return true
	}
	kind := wire.Kind("")
	switch {
	case key == "":
		kind = errorMissingKey
	case s.cfg.apiKey != "" && subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.apiKey)) != 1:
		kind = ErrorAuth
	default:
		return true
	}
	errorFor(API(api), kind, "", model, s.reserve(1).id("req_emu_")).write(w)
	return false
}

// vendor runs the vendor's handler on a request rewritten to path and
// headers, with body, and returns its whole answer.
func vendor(r *http.Request, path string, header http.Header, body []byte, serve func(http.ResponseWriter, *http.Request, []byte)) *httptest.ResponseRecorder {
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = path, ""
	r2.Header = header
	r2.Body = http.NoBody
	rec := httptest.NewRecorder()
	serve(rec, r2, body)
	return rec
}

// pass writes a captured answer's status and headers with out as its
// body.
func pass(w http.ResponseWriter, rec *httptest.ResponseRecorder, out []byte) {
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(rec.Code)
	w.Write(out) //nolint:errcheck // the client went away
}

// jsonEdit decodes a JSON object, lets edit change it, and encodes it
// again (keys sorted, numbers verbatim); anything that is not an object
// is returned as it is.
func jsonEdit(data []byte, edit func(map[string]any)) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return data
	}
	edit(m)
	return marshal(m)
}

// sseEvent is one server-sent event of the emulator's own output.
type sseEvent struct {
	name string
	data []byte
}

// splitSSE splits the emulator's own SSE output into events. (It reads
// only what the vendor handlers wrote: one optional event line, one data
// line, a blank line, LF or CRLF endings.)
func splitSSE(body []byte) []sseEvent {
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	var out []sseEvent
	for _, block := range bytes.Split(body, []byte("\n\n")) {
		var ev sseEvent
		for _, line := range bytes.Split(block, []byte("\n")) {
			switch {
			case bytes.HasPrefix(line, []byte("event:")):
				ev.name = string(bytes.TrimSpace(line[len("event:"):]))
			case bytes.HasPrefix(line, []byte("data:")):
				ev.data = bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			}
		}
		if ev.data != nil {
			out = append(out, ev)
		}
	}
	return out
}

// joinSSE writes events back as server-sent events.
func joinSSE(events []sseEvent, eol string) []byte {
	var b bytes.Buffer
	for _, ev := range events {
		b.Write(wire.SSE(ev.name, ev.data, eol))
	}
	return b.Bytes()
}

// errorMessage reads the message of a vendor error body (Anthropic's,
// OpenAI's or a google.rpc.Status), or "".
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &e) == nil {
		return e.Error.Message
	}
	var arr []json.RawMessage
	if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
		return errorMessage(arr[0])
	}
	return ""
}

// objectFields decodes a JSON object's members, unparsed.
func objectFields(body []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("the body is not a JSON object")
	}
	return m, nil
}

// setFields returns the JSON object body with the members of set added
// (replacing any) and those named in drop removed. body has been checked
// to be an object.
func setFields(body []byte, set map[string]any, drop ...string) []byte {
	m, err := objectFields(body)
	if err != nil {
		return body
	}
	for _, k := range drop {
		delete(m, k)
	}
	for k, v := range set {
		m[k] = marshal(v)
	}
	return marshal(m)
}

// claudePlatform is how a platform reshapes Anthropic's Messages answers
// (their recordings in testdata/recordings show it).
type claudePlatform struct {
	// infix goes into the ids the emulator generated (msg_emu_…,
	// toolu_emu_…): msg_vrtx_… on Vertex AI, msg_bdrk_… on Bedrock. Ids a
	// script names are the server's own and stay verbatim.
	infix string
	// pingFirst sends the stream's one ping right after message_start
	// (Vertex AI); otherwise there is none (Bedrock).
	pingFirst bool
	// dropUsage are usage members the platform does not send.
	dropUsage []string
}

var (
	vertexClaude  = claudePlatform{infix: "vrtx", pingFirst: true}
	bedrockClaude = claudePlatform{infix: "bdrk", dropUsage: []string{"inference_geo"}}
)

// body reshapes a JSON answer or event: the ids' infix, the dropped
// usage members (as the emulator writes them: a string value after a
// comma).
func (p claudePlatform) body(body []byte) []byte {
	for _, prefix := range []string{"msg_", "toolu_"} {
		body = bytes.ReplaceAll(body, []byte(`"`+prefix+`emu_`), []byte(`"`+prefix+p.infix+`_emu_`))
	}
	for _, k := range p.dropUsage {
		body = regexp.MustCompile(`,"`+regexp.QuoteMeta(k)+`":"[^"]*"`).ReplaceAll(body, nil)
	}
	return body
}

// events reshapes a Messages stream: each event as body does,
// message_delta's usage cut to output_tokens, the pings placed.
func (p claudePlatform) events(events []sseEvent) []sseEvent {
	out := make([]sseEvent, 0, len(events))
	var ping *sseEvent
	for _, ev := range events {
		ev.data = p.body(ev.data)
		switch ev.name {
		case "ping":
			if ping == nil {
				ping = &ev
			}
			continue
		case "message_delta":
			ev.data = outputTokensOnly(ev.data)
		}
		out = append(out, ev)
	}
	if p.pingFirst && ping != nil && len(out) > 0 && out[0].name == "message_start" {
		out = slices.Insert(out, 1, *ping)
	}
	return out
}

// outputTokensOnly rewrites a message_delta event's JSON with only
// output_tokens in its usage, keeping the member order and any padding
// inside or after the object.
func outputTokensOnly(data []byte) []byte {
	var d struct {
		Type  string          `json:"type"`
		Delta json.RawMessage `json:"delta"`
		Usage struct {
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(data, &d) != nil {
		return data
	}
	body := bytes.TrimRight(data, " ")
	after := len(data) - len(body)
	inner := bytes.TrimRight(bytes.TrimSuffix(body, []byte("}")), " ")
	inside := len(body) - 1 - len(inner)
	out := marshal(d)
	out = append(out[:len(out)-1], bytes.Repeat([]byte(" "), max(inside, 0))...)
	out = append(out, '}')
	return append(out, bytes.Repeat([]byte(" "), after)...)
}
