package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
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

// key is the matching form of a request in the player's mode.
func (p *Player) key(method string, u *url.URL, h http.Header, body []byte) string {
	if p.match == MatchEndpoint {
		return EndpointKey(method, u, body)
	}
	return Canonical(method, u, h, body, p.headers)
}

// EndpointKey is the matching form of a request under MatchEndpoint, as
// text: the method and path, the alt query parameter when present (it
// chooses Gemini's stream framing), and whether the JSON body asks for a
// stream. Everything else (the body, other query parameters, headers) is
// the client's own and left out.
func EndpointKey(method string, u *url.URL, body []byte) string {
	var sb strings.Builder
	sb.WriteString(method)
	sb.WriteByte(' ')
	sb.WriteString(u.EscapedPath())
	if alt := u.Query().Get("alt"); alt != "" {
		sb.WriteString("?alt=")
		sb.WriteString(url.QueryEscape(alt))
	}
	sb.WriteString("\nstream: ")
	sb.WriteString(strconv.FormatBool(asksForStream(body)))
	sb.WriteByte('\n')
	return sb.String()
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

// loadProvenance reads the provenance header of a cassette file, if it
// has one.
func loadProvenance(path string) (Provenance, error) {
	f, err := os.Open(path)
	if err != nil {
		return Provenance{}, fmt.Errorf("loading cassette %s: %w", path, err)
	}
	head := make([]byte, len(provenanceTitle)+2)
	n, _ := f.Read(head)
	f.Close()
	if !HasProvenance(head[:n]) {
		return Provenance{}, nil
	}
	return ReadProvenance(path)
}
