package vertex

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// reply is one canned HTTP answer.
type reply struct {
	status int
	ctype  string
	body   []byte
}

// seen is one request the test server received.
type seen struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// server answers with its replies in order (the last repeats) and keeps
// every request.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	got     []seen
}

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	s := &server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), body})
		rep := s.replies[min(len(s.got), len(s.replies))-1]
		s.mu.Unlock()
		if rep.ctype != "" {
			w.Header().Set("Content-Type", rep.ctype)
		}
		w.WriteHeader(rep.status)
		w.Write(rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.got...)
}

// recording is one vendored real exchange (testdata/recordings).
type recording struct {
	status int
	ctype  string
	uri    string
	req    []byte
	resp   []byte
}

// readRecording reads api/name: meta.json, request.json and the response
// (response.json, else response.txt).
func readRecording(t *testing.T, api, name string) recording {
	t.Helper()
	var meta struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"response_headers"`
		Request struct {
			URI string `json:"uri"`
		} `json:"request"`
	}
	require.NoError(t, json.Unmarshal(adaptertest.ReadFixture(t, api, name, "meta.json"), &meta))
	rec := recording{status: meta.Status, ctype: meta.Headers["content-type"], uri: meta.Request.URI,
		req: adaptertest.ReadFixture(t, api, name, "request.json")}
	if rec.ctype == "text/event-stream" || len(rec.ctype) > 17 && rec.ctype[:17] == "text/event-stream" {
		rec.resp = adaptertest.ReadFixture(t, api, name, "response.txt")
	} else {
		rec.resp = adaptertest.ReadFixture(t, api, name, "response.json")
	}
	return rec
}

func (r recording) reply() reply { return reply{status: r.status, ctype: r.ctype, body: r.resp} }

// jsonMap decodes a JSON object.
func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// staticToken is a token source counting its calls; each token expires
// after ttl (0: never).
type countingSource struct {
	mu  sync.Mutex
	n   int
	ttl time.Duration
}

func (c *countingSource) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	tok := &oauth2.Token{AccessToken: "ya29.test-token-" + string(rune('0'+c.n)), TokenType: "Bearer"}
	if c.ttl != 0 {
		tok.Expiry = time.Now().Add(c.ttl)
	}
	return tok, nil
}

// noEnv is a Getenv with nothing set.
func noEnv(string) string { return "" }

// config is an adapter Config for tests: the named models under the
// options, against base.
func config(base string, opts map[string]any, models map[string]adapters.ModelConfig) adapters.Config {
	return adapters.Config{BaseURL: base, Options: opts, Models: models, Getenv: noEnv, Clock: adaptertest.NewClock(time.Now())}
}

// final returns the response of a stream's message.complete, its last
// event.
func final(t *testing.T, evs []canonical.StreamEvent) *canonical.Response {
	t.Helper()
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	require.Equal(t, canonical.EventMessageComplete, last.Type)
	require.NotNil(t, last.Response)
	return last.Response
}

// bearerToken returns the token of h's "Authorization: Bearer" header,
// failing t when there is none.
func bearerToken(t *testing.T, h http.Header) string {
	t.Helper()
	tok, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	require.True(t, ok, "Authorization %q is not a bearer token", h.Get("Authorization"))
	return tok
}
