package adaptertest

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Recording is one vendored real exchange (testdata/recordings/<api>/<name>):
// what its meta.json says and its bodies.
type Recording struct {
	// Status and Header are the response's status and headers (lower-case
	// names, as meta.json has them); ContentType is Header's content-type.
	Status      int
	Header      map[string]string
	ContentType string
	// Method and URI are the request's.
	Method, URI string
	// Request is request.json (nil when none was recorded); Response is
	// the response body: response.json, response.txt (SSE) or response.bin
	// (an AWS event stream), whichever the recording has.
	Request, Response []byte
}

// ReadRecording reads the recording api/name, failing tb when it or its
// response is missing.
func ReadRecording(tb testing.TB, api, name string) Recording {
	tb.Helper()
	dir := filepath.Join(FixturesDir(tb, api, name))
	var meta struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"response_headers"`
		Request struct {
			Method string `json:"method"`
			URI    string `json:"uri"`
		} `json:"request"`
	}
	if err := json.Unmarshal(ReadFixture(tb, api, name, "meta.json"), &meta); err != nil {
		tb.Fatalf("%s/%s/meta.json: %v", api, name, err)
	}
	rec := Recording{Status: meta.Status, Header: meta.Headers, ContentType: meta.Headers["content-type"], Method: meta.Request.Method, URI: meta.Request.URI}
	if b, err := os.ReadFile(filepath.Join(dir, "request.json")); err == nil {
		rec.Request = b
	} else if !errors.Is(err, fs.ErrNotExist) {
		tb.Fatal(err)
	}
	for _, f := range []string{"response.json", "response.txt", "response.bin"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err == nil {
			rec.Response = b
			return rec
		}
		if !errors.Is(err, fs.ErrNotExist) {
			tb.Fatal(err)
		}
	}
	tb.Fatalf("%s/%s: no response.json, response.txt or response.bin", api, name)
	return rec
}

// Reply is the answer the recording's server gave, for a Server.
func (r Recording) Reply() Reply {
	return Reply{Status: r.Status, ContentType: r.ContentType, Body: r.Response}
}

// Reply is one canned HTTP answer of a Server.
type Reply struct {
	Status      int // 0 means 200
	ContentType string
	Header      map[string]string
	Body        []byte
}

// ServedRequest is one request a Server received.
type ServedRequest struct {
	Method string
	// Path is the request's escaped path, RawQuery its query.
	Path, RawQuery string
	Header         http.Header
	Body           []byte
}

// Server is an httptest server answering with its replies in order (the
// last one repeats) and keeping every request, closed when the test
// ends.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []Reply
	got     []ServedRequest
}

// NewServer starts a Server with at least one reply.
func NewServer(tb testing.TB, replies ...Reply) *Server {
	tb.Helper()
	if len(replies) == 0 {
		tb.Fatal("adaptertest.NewServer: no reply")
	}
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, ServedRequest{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), body})
		rep := s.replies[min(len(s.got), len(s.replies))-1]
		s.mu.Unlock()
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		if rep.ContentType != "" {
			w.Header().Set("Content-Type", rep.ContentType)
		}
		if rep.Status == 0 {
			rep.Status = http.StatusOK
		}
		w.WriteHeader(rep.Status)
		w.Write(rep.Body) //nolint:errcheck // the client went away
	}))
	tb.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []ServedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ServedRequest(nil), s.got...)
}
