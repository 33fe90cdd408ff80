package record

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/metis-llm/metis/internal/secrets"
)

// redirect sends every request to base's scheme and host, with base's
// path prefixed to the request's path. The request itself (and so the
// recorded URL) is not changed.
type redirect struct {
	base *url.URL
	next http.RoundTripper
}

func (rd redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = rd.base.Scheme, rd.base.Host, ""
	r.URL.User = rd.base.User
	if p := strings.TrimSuffix(rd.base.Path, "/"); p != "" {
		r.URL.Path = p + req.URL.Path
		if req.URL.RawPath != "" {
			r.URL.RawPath = strings.TrimSuffix(rd.base.EscapedPath(), "/") + req.URL.RawPath
		}
	}
	return rd.next.RoundTrip(r)
}

// endpoint is a base URL as provenance shows it: without credentials —
// no user information, no query, no key-shaped path segment (a gateway
// that takes its key in the path).
func endpoint(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return secrets.NewScrubber().URL(c.String())
}

// keyless stands in for a local server's lack of auth when recording
// against the emulator, which asks every request for a key: requests of an
// adapter configured without one (vLLM, Ollama, ... need none) get the
// run's fake key as a Bearer token after capture, so it is never recorded.
type keyless struct {
	key  string
	next http.RoundTripper
}

func (k keyless) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return k.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return k.next.RoundTrip(r)
}
