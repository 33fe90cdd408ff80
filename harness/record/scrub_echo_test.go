package record_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/record"
)

// A credential the recording drops from one place (a header, the URL's
// query or user, a form field) is scrubbed wherever else the exchange
// carries it: a server that echoes the request (an error quoting the
// URL, a body repeating a header) must not put it back into the
// cassette (the class of kevin1024/vcrpy#517: the query filter ran on
// the request, the full URL was kept elsewhere).
func TestScrubRemovesEchoedCredentials(t *testing.T) {
	const (
		queryKey  = "AIzaQUERYKEY0123456789abcdefghij"
		headerKey = "sk-ant-HEADERKEY0123456789abcdef"
		formKey   = "FORMKEY-0123456789abcdefghijklm"
		userPass  = "USERPASS-0123456789abcdefghijkl"
	)
	i := &cassette.Interaction{
		ID: 0,
		Request: cassette.Request{
			URL:        "https://u:" + userPass + "@example.test/v1/models/m:generateContent?key=" + queryKey,
			Form:       url.Values{"api_key": {formKey}, "note": {"n"}, "alt": {"sse-" + headerKey}},
			Headers:    http.Header{"X-Api-Key": {headerKey}, "Content-Type": {"application/json"}},
			Body:       `{"q":"hi"}`,
			Trailer:    http.Header{"X-Trailer": {"t"}},
			RemoteAddr: "10.0.0.1:1234",
			RequestURI: "/v1/models/m:generateContent?key=" + queryKey,
		},
		Response: cassette.Response{
			Headers: http.Header{"Content-Type": {"text/plain; key=" + queryKey}, "Request-Id": {"abc"}},
			Body:    "bad request to /v1?key=" + queryKey + " with " + headerKey + " and " + formKey + " as " + userPass,
		},
	}
	require.NoError(t, record.Scrub(i))
	all := i.Request.URL + i.Response.Body + strings.Join(i.Response.Headers.Values("Content-Type"), "") + strings.Join(i.Request.Form["alt"], "")
	for _, secret := range []string{queryKey, headerKey, formKey, userPass} {
		assert.NotContains(t, all, secret)
	}
	assert.Contains(t, i.Response.Body, "bad request to /v1?key=", "the text around an echoed credential is kept")
	assert.Equal(t, []string{"req_masked_1"}, i.Response.Headers.Values("Request-Id"), "request ids are numbered from 1")
	assert.Nil(t, i.Request.Trailer)
	assert.Empty(t, i.Request.RemoteAddr)
	assert.Empty(t, i.Request.RequestURI)
	assert.NotContains(t, i.Request.Form, "api_key")
	assert.Equal(t, []string{"REDACTED"}, i.Request.Form["note"], "a form value not on the allowlist becomes the placeholder")
	assert.Equal(t, []string{"sse-REDACTED"}, i.Request.Form["alt"], "an allowlisted form value keeps its text, credentials scrubbed")
}
