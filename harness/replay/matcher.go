package replay

import (
	"bytes"
	"io"
	"net/http"
	"net/url"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// Matcher returns a go-vcr MatcherFunc that matches requests as a Player
// does (Canonical over the given headers, DefaultHeaders when none), for
// a recorder that replays some interactions while recording others. go-vcr
// itself applies the served-once rule. The request body is read and
// restored.
func Matcher(headers ...string) cassette.MatcherFunc {
	if len(headers) == 0 {
		headers = DefaultHeaders
	}
	names := headerNames(headers)
	return func(r *http.Request, rec cassette.Request) bool {
		var body []byte
		if r.Body != nil && r.Body != http.NoBody {
			var err error
			if body, err = io.ReadAll(r.Body); err != nil {
				return false
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		u, err := url.Parse(rec.URL)
		if err != nil {
			return false
		}
		return matchKey(r.Method, r.URL, r.Header, body, names) ==
			matchKey(rec.Method, u, rec.Headers, []byte(rec.Body), names)
	}
}
