package driver

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// TestIdleTimerPausedDuringBackoff: the idle timeout bounds the wait for
// the server, not the adapter's own backoff between attempts: a
// Retry-After longer than the idle timeout is waited out (on the real
// clock) and the retry succeeds.
func TestIdleTimerPausedDuringBackoff(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{status: 503, header: map[string]string{"Retry-After": "1"}}, reply{body: sse(evText, evStop)})
	defer s.Close()
	a := newFakeAdapter(s.srv.URL+"/v1/fake", adapters.Config{
		Name: "fake", HTTPClient: s.client, MaxRetries: 1,
		Options: map[string]any{"idle_timeout_seconds": 0.5}, // well within a loaded machine's answer, shorter than the backoff
	})
	events, errs := collect(a.Stream(context.Background(), testRequest()), nil)
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	if last := events[len(events)-1]; last.Type != canonical.EventMessageComplete || last.Response.StopReason != canonical.StopToolUse {
		t.Fatalf("last event %+v", last)
	}
}

// TestIdleTimeoutOff: idle_timeout_seconds 0 turns the idle timeout off;
// the whole-call timeout still ends a stalled stream, as network/timeout.
func TestIdleTimeoutOff(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{body: sse(evText) + "HANG"})
	defer s.Close()
	a := newFakeAdapter(s.srv.URL+"/v1/fake", adapters.Config{
		Name: "fake", HTTPClient: s.client, Timeout: 300 * time.Millisecond,
		Options: map[string]any{"idle_timeout_seconds": 0},
	})
	_, errs := collect(a.Stream(context.Background(), testRequest()), nil)
	if len(errs) != 1 || canonical.CodeOf(errs[0]) != canonical.CodeTimeout || strings.Contains(errs[0].Error(), "idle") {
		t.Fatalf("errors %v, want the whole-call timeout", errs)
	}
}

// TestNotABody: the shapes a non-streamed 2xx body cannot have, whatever
// its API.
func TestNotABody(t *testing.T) {
	for _, tc := range []struct {
		ctype, body, want string
	}{
		{"application/json", `{"id":1}`, ""},
		{"application/json", ` [1] `, ""},
		{"", "\xef\xbb\xbf{}", ""},
		{"text/html", `{"id":1}`, "an HTML page"},
		{"application/xml", `<a/>`, "an XML document"},
		{"application/json", "", "an empty body"},
		{"application/json", " \n\t", "an empty body"},
		{"application/json", "null", "JSON null"},
		{"text/plain", "<html>", "an HTML or XML document"},
		{"text/plain", "Bad Gateway", "not JSON"},
		{"application/problem+json", `{"title":"x"}`, ""},
	} {
		if got := notABody(http.Header{"Content-Type": {tc.ctype}}, []byte(tc.body)); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.ctype, tc.body, got, tc.want)
		}
	}
}

// TestStatesError: the error reports of every API the built-in adapters
// speak are recognised, and responses are not.
func TestStatesError(t *testing.T) {
	for body, want := range map[string]bool{
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: true,
		`{"error":{"message":"m","type":"server_error","code":null}}`:                 true,
		`{"error":"model not found"}`:                                                 true,
		`[{"error":{"code":503,"message":"m","status":"UNAVAILABLE"}}]`:               true,
		`{"object":"error","message":"m","type":"BadRequestError","code":400}`:        true,
		`{"__type":"ThrottlingException","message":"m"}`:                              true,
		`{"id":"resp_1","object":"response","status":"completed","error":null}`:       false,
		`{"error":""}`:                false,
		`{"type":"message"}`:          false,
		`{}`:                          false,
		`[]`:                          false,
		`null`:                        false,
		`{"error":`:                   false,
		`<html>error</html>`:          false,
		`{"candidates":[]}`:           false,
		`{"choices":[],"error":null}`: false,
		`{"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"m"}}`: false,
		`{"type":"message","error":{"message":"m"}}`:                                                          false,
	} {
		if got := statesError([]byte(body)); got != want {
			t.Errorf("statesError(%s) = %v, want %v", body, got, want)
		}
	}
}

// FuzzNotAResponse: the shape checks of a 2xx body never panic, and the
// error they build quotes no more than the excerpt.
func FuzzNotAResponse(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"m"}}`, `null`, ``, `<html>`, `[{"error":"x"}]`, "\xef\xbb\xbf {}", `{"__type":"X"}`} {
		f.Add("application/json", []byte(s))
	}
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		h := http.Header{"Content-Type": {ctype}}
		_ = notABody(h, body)
		_ = statesError(body)
		_ = documentType(h)
		if d := describeBody(h, body); len(d) > 4*bodyExcerpt+len(ctype)+200 {
			t.Fatalf("description of %d bytes", len(d))
		}
	})
}

// FuzzDecodeLimits: any YAML options decode to limits within their
// bounds or fail with an AdapterError naming the adapter, never a panic.
func FuzzDecodeLimits(f *testing.F) {
	f.Add("idle_timeout_seconds: 0.25\nmax_body_bytes: 1024\n", "max_event_bytes: 99\n")
	f.Add("idle_timeout_seconds: .nan\n", "idle_timeout_seconds: 1e300\n")
	f.Add("max_body_bytes: -1\nflag: true\n", "max_event_bytes: 9007199254740993\n")
	f.Fuzz(func(t *testing.T, adapterOpts, modelOpts string) {
		cfg := &adapters.Config{Name: "x", Models: map[string]adapters.ModelConfig{}}
		var a, m map[string]any
		if yaml.Unmarshal([]byte(adapterOpts), &a) != nil || yaml.Unmarshal([]byte(modelOpts), &m) != nil {
			t.Skip()
		}
		cfg.Options = a
		cfg.Models["x:m"] = adapters.ModelConfig{Options: m}
		o, err := decodeLimits(cfg)
		var ae *canonical.AdapterError
		if err != nil {
			if !errors.As(err, &ae) || !strings.HasPrefix(ae.Message, `adapter "x": `) {
				t.Fatalf("error %v is not the option error", err)
			}
			return
		}
		for _, l := range []Limits{o.For("x:m"), o.For("x:other")} {
			if l.IdleTimeout < 0 || l.MaxBodyBytes <= 0 || l.MaxEventBytes <= 0 {
				t.Fatalf("limits out of bounds: %+v", l)
			}
		}
	})
}

// TestLooksLikeSSE: the starts of bodies declared text/plain that are
// event streams all the same (Go's servers sniff that type for a stream
// served without one) and of those that are a proxy's text.
func TestLooksLikeSSE(t *testing.T) {
	for head, want := range map[string]bool{
		"event: x\ndata: {}\n\n":           true,
		"data: {\"t\":\"text\"}\n\n":       true,
		"\xef\xbb\xbf\r\n: keep-alive\n\n": true,
		"id: 7\r\n":                        true,
		"retry: 1000\n":                    true,
		"data\n\n":                         true,
		"da":                               true, // cut short: it may become data:
		"":                                 true, // nothing to judge: the decoder's
		"upstream connect error or disconnect/reset":       false,
		"Error: the service is down for maintenance\n":     false,
		"Service Unavailable":                              false,
		"database is down\n":                               false,
		"dat\nService Unavailable":                         false,
		"  Bad Gateway: the upstream answered 502\r\n\r\n": false,
	} {
		if got := looksLikeSSE([]byte(head)); got != want {
			t.Errorf("looksLikeSSE(%q) = %v, want %v", head, got, want)
		}
	}
}
