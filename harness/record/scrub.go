package record

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
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

// secretParams are query parameters that carry keys (compared without
// case); Scrub removes them.
var secretParams = []string{"key", "api_key", "apikey", "api-key", "access_token", "token"}

// scrubber is Scrub with its allowlists.
type scrubber struct {
	request, response []string
}

func newScrubber(request, response []string) *scrubber {
	if request == nil {
		request = RequestHeaders
	}
	if response == nil {
		response = ResponseHeaders
	}
	return &scrubber{request: request, response: response}
}

// Scrub removes secrets and volatile values from an interaction, in
// place, with the default allowlists: see the package documentation. It
// replaces the header maps rather than editing them, so the live request
// and response they came from are not touched.
func Scrub(i *cassette.Interaction) error { return newScrubber(nil, nil).scrub(i) }

func (s *scrubber) scrub(i *cassette.Interaction) error {
	u, err := url.Parse(i.Request.URL)
	if err != nil {
		return fmt.Errorf("record: interaction %d: bad URL: %w", i.ID, err)
	}
	u.User = nil
	q := u.Query()
	changed := false
	for k := range q {
		if isSecretParam(k) {
			q.Del(k)
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	i.Request.URL = u.String()
	if i.Request.Form != nil {
		form := url.Values{}
		for k, v := range i.Request.Form {
			if !isSecretParam(k) {
				form[k] = slices.Clone(v)
			}
		}
		i.Request.Form = form
	}
	i.Request.Headers = keep(i.Request.Headers, s.request)
	i.Request.Trailer = nil
	i.Request.RemoteAddr = ""
	i.Request.RequestURI = ""

	h := keep(i.Response.Headers, s.response)
	for _, name := range maskedHeaders {
		if len(h.Values(name)) > 0 {
			h.Set(name, fmt.Sprintf("req_masked_%d", i.ID+1))
		}
	}
	i.Response.Headers = h
	i.Response.Trailer = nil
	i.Response.Duration = 0
	return nil
}

// keep returns a new header holding only the allowed names of h.
func keep(h http.Header, allowed []string) http.Header {
	out := http.Header{}
	for k, vs := range h {
		for _, a := range allowed {
			if strings.EqualFold(k, a) {
				out[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
				break
			}
		}
	}
	return out
}

func isSecretParam(name string) bool {
	for _, p := range secretParams {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}
