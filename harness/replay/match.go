package replay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// WithMatch sets how the player matches requests, overriding the
// cassette's provenance.
func WithMatch(m Match) Option {
	return optionFunc(func(p *Player) { p.match = m })
}

// withProvenance gives the player its cassette's provenance and the match
// mode it declares.
func withProvenance(prov Provenance) Option {
	return optionFunc(func(p *Player) {
		p.prov = prov
		if prov.Match != "" {
			p.match = prov.Match
		}
	})
}

// key is the matching form of a request in the player's mode: under
// MatchExact the compact key (equal exactly when the Canonical texts
// are), under MatchSemantic semanticKey, else EndpointKey.
func (p *Player) key(method string, u *url.URL, h http.Header, body []byte) string {
	if p.match == MatchSemantic {
		return semanticKey(method, u)
	}
	if p.match == MatchEndpoint {
		return EndpointKey(method, u, streams(u, body))
	}
	return matchKey(method, u, h, body, p.names)
}

// text is the readable matching form of a request, for mismatch diffs.
func (p *Player) text(method string, u *url.URL, h http.Header, body []byte) string {
	if p.match == MatchEndpoint {
		return EndpointKey(method, u, streams(u, body))
	}
	return Canonical(method, u, h, body, p.headers)
}

// recordedKey is the matching form of a recorded interaction's request.
// Under MatchEndpoint, a request whose body was not recorded streams when
// its response is an event stream.
func (p *Player) recordedKey(in *cassette.Interaction, u *url.URL) string {
	if p.match != MatchEndpoint {
		return p.key(in.Request.Method, u, in.Request.Headers, []byte(in.Request.Body))
	}
	return p.recordedEndpoint(in, u)
}

// recordedText is recordedKey's readable form.
func (p *Player) recordedText(in *cassette.Interaction, u *url.URL) string {
	if p.match != MatchEndpoint {
		return p.text(in.Request.Method, u, in.Request.Headers, []byte(in.Request.Body))
	}
	return p.recordedEndpoint(in, u)
}

func (p *Player) recordedEndpoint(in *cassette.Interaction, u *url.URL) string {
	stream := streams(u, []byte(in.Request.Body))
	if len(bytes.TrimSpace([]byte(in.Request.Body))) == 0 && isEventStream(in.Response.Headers.Get("Content-Type")) {
		stream = true
	}
	return EndpointKey(in.Request.Method, u, stream)
}

// EndpointKey is the matching form of a request under MatchEndpoint, as
// text: the method and path, the alt query parameter when present (it
// chooses Gemini's stream framing), and whether the request streams.
// Everything else — the body, other query parameters, headers — is the
// recording client's own and left out, and so is the model in a Gemini
// path (/models/NAME:method), as the model field of an OpenAI or
// Anthropic body is.
func EndpointKey(method string, u *url.URL, stream bool) string {
	var sb strings.Builder
	sb.WriteString(method)
	sb.WriteByte(' ')
	sb.WriteString(geminiModel.ReplaceAllString(u.EscapedPath(), "/models/*:"))
	if alt := u.Query().Get("alt"); alt != "" {
		sb.WriteString("?alt=")
		sb.WriteString(url.QueryEscape(alt))
	}
	sb.WriteString("\nstream: ")
	sb.WriteString(strconv.FormatBool(stream))
	sb.WriteByte('\n')
	return sb.String()
}

// geminiModel is the model segment of a Gemini method path.
var geminiModel = regexp.MustCompile(`/models/[^/:]+:`)

// streams reports whether a request asks for a stream: "stream": true at
// the top of its JSON body, or Gemini's streamGenerateContent method.
func streams(u *url.URL, body []byte) bool {
	return asksForStream(body) || strings.HasSuffix(u.Path, ":streamGenerateContent")
}

// asksForStream reports whether a JSON request body has "stream": true at
// its top level.
func asksForStream(body []byte) bool {
	if len(bytes.TrimSpace(body)) == 0 {
		return false
	}
	var v struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &v) == nil && v.Stream
}
