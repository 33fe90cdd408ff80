package record

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

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

// scrubber is Scrub with its allowlists and the configured keys. It
// scrubs a recording in two passes: collect sees every interaction and
// remembers the credentials it will drop (header, query and field
// values); scrub then removes them from every interaction, responses
// included. It is safe for concurrent use.
type scrubber struct {
	request, response []string
	mu                sync.Mutex
	s                 *secrets.Scrubber
}

func newScrubber(request, response, keys []string) *scrubber {
	if request == nil {
		request = RequestHeaders
	}
	if response == nil {
		response = ResponseHeaders
	}
	return &scrubber{request: request, response: response, s: secrets.NewScrubber(keys...)}
}

// Scrub removes secrets and volatile values from an interaction, in
// place, with the default allowlists: see the package documentation. It
// replaces the header maps rather than editing them, so the live request
// and response they came from are not touched.
func Scrub(i *cassette.Interaction) error {
	s := newScrubber(nil, nil, nil)
	if err := s.collect(i); err != nil {
		return err
	}
	return s.scrub(i)
}

// collect remembers the credentials of an interaction, changing nothing:
// the values of its credential headers, URL parameters and user, form
// fields, and body fields.
func (s *scrubber) collect(i *cassette.Interaction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, vs := range i.Request.Headers {
		s.s.Header(name, vs)
	}
	for name, vs := range i.Response.Headers {
		s.s.Header(name, vs)
	}
	s.s.URL(i.Request.URL)
	for name, vs := range i.Request.Form {
		if strings.EqualFold(name, "key") || secrets.IsSecretParam(name) {
			s.s.Remember(vs...)
		}
	}
	s.s.Body([]byte(i.Request.Body), i.Request.Headers.Get("Content-Type"))
	s.s.Body([]byte(i.Response.Body), i.Response.Headers.Get("Content-Type"))
	return nil
}

func (s *scrubber) scrub(i *cassette.Interaction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, err := url.Parse(i.Request.URL)
	if err != nil {
		return fmt.Errorf("record: interaction %d: bad URL: %w", i.ID, err)
	}
	u.User = nil
	replay.ScrubQuery(u)
	i.Request.URL = string(s.s.Replace([]byte(s.s.URL(u.String()))))
	if i.Request.Form != nil {
		form := url.Values{}
		for k, v := range i.Request.Form {
			form[k] = slices.Clone(v)
		}
		replay.ScrubValues(form)
		for _, vs := range form {
			for j := range vs {
				vs[j] = string(s.s.Replace([]byte(vs[j])))
			}
		}
		i.Request.Form = form
	}
	i.Request.Body = s.body(i.Request.Body, i.Request.Headers)
	i.Request.Headers = s.keep(i.Request.Headers, s.request)
	i.Request.Trailer = nil
	i.Request.RemoteAddr = ""
	i.Request.RequestURI = ""

	i.Response.Body = s.body(i.Response.Body, i.Response.Headers)
	h := s.keep(i.Response.Headers, s.response)
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

// body scrubs a body by its container (secrets.Scrubber.Body): the values
// of fields that hold credentials, key shapes, and every credential value
// the recording dropped or that was configured become
// secrets.Placeholder.
func (s *scrubber) body(b string, h http.Header) string {
	if b == "" {
		return b
	}
	return string(s.s.Body([]byte(b), h.Get("Content-Type")))
}

// keep returns a new header holding only the allowed names of h, with
// the credential values replaced in their values.
func (s *scrubber) keep(h http.Header, allowed []string) http.Header {
	out := http.Header{}
	for k, vs := range h {
		for _, a := range allowed {
			if strings.EqualFold(k, a) {
				kept := slices.Clone(vs)
				for j := range kept {
					kept[j] = string(s.s.Replace([]byte(kept[j])))
				}
				out[http.CanonicalHeaderKey(k)] = kept
				break
			}
		}
	}
	return out
}
