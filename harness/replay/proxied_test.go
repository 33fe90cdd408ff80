package replay_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness/replay"
)

// TestProxied checks that a request the server forwards is marked as
// having come over loopback HTTP, with its path and query the adapter's
// own (its escaping kept), and that any other request is not.
func TestProxied(t *testing.T) {
	srv, err := replay.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var got *http.Request
	run, err := srv.NewRun("", "s/x", "azure:m", []string{"azure"}, func(string) (http.RoundTripper, error) {
		return proxiedRT(func(r *http.Request) (*http.Response, error) {
			got = r
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
		}), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(run.BaseURL("azure")+"/model/a%3A0/invoke?api-version=v1", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got == nil {
		t.Fatal("the request was not forwarded")
	}
	if !replay.Proxied(got) {
		t.Error("a forwarded request is not marked Proxied")
	}
	if p := got.URL.EscapedPath() + "?" + got.URL.RawQuery; p != "/model/a%3A0/invoke?api-version=v1" {
		t.Errorf("forwarded path %s, want the adapter's own /model/a%%3A0/invoke?api-version=v1", p)
	}
	if replay.Proxied(httptest.NewRequest(http.MethodPost, "https://example.com/x", nil)) {
		t.Error("a request the server did not forward is marked Proxied")
	}
}

// proxiedRT is a RoundTripper function (this file's own, apart from the
// package's other tests).
type proxiedRT func(*http.Request) (*http.Response, error)

func (f proxiedRT) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
