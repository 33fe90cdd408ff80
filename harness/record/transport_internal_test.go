package record

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestEndpointHidesCredentials(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3dEf6hIj", 3)
	u, err := url.Parse("https://user:pw@gateway.example.com/v1/" + key + "/openai?api-key=x")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := endpoint(u), "https://gateway.example.com/v1/REDACTED/openai"; got != want {
		t.Errorf("endpoint = %s, want %s", got, want)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestRedirect: a request for a provider goes to the base URL instead,
// under the base's path, its escaped segments (an encoded slash in a
// model name) kept as they were; the Host header follows the base.
func TestRedirect(t *testing.T) {
	for _, tc := range []struct {
		base, req, want string
	}{
		{"http://127.0.0.1:8080", "https://api.openai.com/v1/responses", "http://127.0.0.1:8080/v1/responses"},
		{"http://gw.test/proxy/", "https://api.openai.com/v1/responses?x=1", "http://gw.test/proxy/v1/responses?x=1"},
		{"http://gw.test/proxy", "https://api.example.com/v1/models/org%2Fmodel:generate", "http://gw.test/proxy/v1/models/org%2Fmodel:generate"},
		{"http://gw.test/a%2Fb/", "https://api.example.com/v1/models/org%2Fmodel", "http://gw.test/a%2Fb/v1/models/org%2Fmodel"},
		{"http://user:pw@gw.test", "https://api.example.com/v1/chat", "http://user:pw@gw.test/v1/chat"},
	} {
		t.Run(tc.req, func(t *testing.T) {
			base, err := url.Parse(tc.base)
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(http.MethodPost, tc.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got *http.Request
			rd := redirect{base: base, next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				got = r
				return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: r}, nil
			})}
			if _, err := rd.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if s := got.URL.String(); s != tc.want {
				t.Errorf("sent to %s, want %s", s, tc.want)
			}
			if got.Host != "" {
				t.Errorf("Host = %q, want the URL's", got.Host)
			}
			if req.URL.String() != tc.req {
				t.Errorf("the caller's request changed: %s", req.URL)
			}
		})
	}
}
