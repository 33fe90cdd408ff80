package record

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/internal/secrets"
)

// RequestHeaders are the request headers a cassette keeps: the ones that
// change what the provider does. Every other header is dropped, keys and
// SDK telemetry among them.
var RequestHeaders = []string{"Content-Type", "Anthropic-Version", "Anthropic-Beta"}

// ResponseHeaders are the response headers a cassette keeps: those the
// adapters read. Request ids among them are masked.
var ResponseHeaders = []string{"Content-Type", "Request-Id", "X-Request-Id", "Retry-After", "Retry-After-Ms", "X-Should-Retry"}

// maskedHeaders are response headers whose values differ on every
// request; Scrub replaces them with req_masked_<n>.
var maskedHeaders = []string{"Request-Id", "X-Request-Id"}

// scrubber is Scrub with its allowlists and the configured keys.
type scrubber struct {
	request, response []string
	keys              []string
}

func newScrubber(request, response, keys []string) *scrubber {
	if request == nil {
		request = RequestHeaders
	}
	if response == nil {
		response = ResponseHeaders
	}
	return &scrubber{request: request, response: response, keys: keys}
}

// Scrub removes secrets and volatile values from an interaction, in
// place, with the default allowlists: see the package documentation. It
// replaces the header maps rather than editing them, so the live request
// and response they came from are not touched.
func Scrub(i *cassette.Interaction) error { return newScrubber(nil, nil, nil).scrub(i) }

func (s *scrubber) scrub(i *cassette.Interaction) error {
	u, err := url.Parse(i.Request.URL)
	if err != nil {
		return fmt.Errorf("record: interaction %d: bad URL: %w", i.ID, err)
	}
	u.User = nil
	replay.ScrubQuery(u)
	i.Request.URL = string(secrets.ReplaceValues([]byte(u.String()), s.keys...))
	if i.Request.Form != nil {
		form := url.Values{}
		for k, v := range i.Request.Form {
			form[k] = slices.Clone(v)
		}
		replay.ScrubValues(form)
		for _, vs := range form {
			for j := range vs {
				vs[j] = string(secrets.ReplaceValues([]byte(vs[j]), s.keys...))
			}
		}
		i.Request.Form = form
	}
	i.Request.Body = s.body(i.Request.Body)
	i.Request.Headers = s.keep(i.Request.Headers, s.request)
	i.Request.Trailer = nil
	i.Request.RemoteAddr = ""
	i.Request.RequestURI = ""

	h := s.keep(i.Response.Headers, s.response)
	for _, name := range maskedHeaders {
		if len(h.Values(name)) > 0 {
			h.Set(name, fmt.Sprintf("req_masked_%d", i.ID+1))
		}
	}
	i.Response.Headers = h
	i.Response.Body = s.body(i.Response.Body)
	i.Response.Trailer = nil
	i.Response.Duration = 0
	return nil
}

// body replaces the configured keys, and the values of fields that hold
// credentials (secrets.IsSecretField), with secrets.Placeholder.
func (s *scrubber) body(b string) string {
	if b == "" {
		return b
	}
	return string(secrets.ScrubFields(secrets.ReplaceValues([]byte(b), s.keys...)))
}

// keep returns a new header holding only the allowed names of h, with
// the configured keys replaced in their values.
func (s *scrubber) keep(h http.Header, allowed []string) http.Header {
	out := http.Header{}
	for k, vs := range h {
		for _, a := range allowed {
			if strings.EqualFold(k, a) {
				kept := slices.Clone(vs)
				for j := range kept {
					kept[j] = string(secrets.ReplaceValues([]byte(kept[j]), s.keys...))
				}
				out[http.CanonicalHeaderKey(k)] = kept
				break
			}
		}
	}
	return out
}
