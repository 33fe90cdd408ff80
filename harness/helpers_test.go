package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/gemini"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
)

// factories builds the three hosted providers' adapters.
func factories() map[string]adapters.Factory {
	return map[string]adapters.Factory{
		"anthropic": func(c adapters.Config) (adapters.Adapter, error) {
			a, err := anthropic.New(c)
			if err != nil {
				return nil, err
			}
			return a, nil
		},
		"openai": func(c adapters.Config) (adapters.Adapter, error) {
			a, err := openai.New(c)
			if err != nil {
				return nil, err
			}
			return a, nil
		},
		"gemini": func(c adapters.Config) (adapters.Adapter, error) {
			a, err := gemini.New(c)
			if err != nil {
				return nil, err
			}
			return a, nil
		},
	}
}

// emulated returns a Config whose transports send every request to a
// fresh emulator, scripted from each call's reply, as the record tool
// does; faults come from testFaults.
func emulated(t *testing.T) harness.Config {
	t.Helper()
	srv := emulator.NewServer()
	t.Cleanup(srv.Close)
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return harness.Config{
		Factories: factories(),
		NoGoldens: true,
		Transport: func(provider string, sc *harness.Scenario, model string) (http.RoundTripper, error) {
			return replay.Resplit(rewriteHost{target: target}), nil
		},
		BeforeCall: func(_ context.Context, c harness.CallInfo) error {
			if r := c.Step.Call.Reply; r != nil {
				srv.Enqueue(toEmulator(r))
			}
			return nil
		},
		Faults: testFaults,
	}
}

type rewriteHost struct{ target *url.URL }

func (rw rewriteHost) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = rw.target.Scheme, rw.target.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}

func toEmulator(r *harness.Reply) emulator.Reply {
	out := emulator.Reply{Text: r.Text, Thinking: r.Thinking, StopReason: r.StopReason}
	if r.Usage != nil {
		out.Usage = *r.Usage
	}
	for _, tc := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, emulator.ToolCall{ID: tc.ID, Name: tc.Name, Input: tc.Input})
	}
	return out
}

// testFaults is a small stand-in for the fault layer, enough to exercise
// the harness's hook: status/headers/body/times, and kinds truncate and
// error_event after N server-sent events.
func testFaults(spec map[string]any, next http.RoundTripper) (http.RoundTripper, error) {
	times := -1
	if v, ok := spec["times"]; ok {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil {
			return nil, fmt.Errorf("times: %v", err)
		}
		times = n
	}
	var body []byte
	switch b := spec["body"].(type) {
	case nil:
	case string:
		body = []byte(b)
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			return nil, err
		}
	}
	kind, _ := spec["kind"].(string)
	after := 0
	if v, ok := spec["after_events"]; ok {
		after, _ = strconv.Atoi(fmt.Sprint(v))
	}
	var mu sync.Mutex
	return roundTrip(func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		active := times != 0
		if times > 0 {
			times--
		}
		mu.Unlock()
		if !active {
			return next.RoundTrip(req)
		}
		switch kind {
		case "":
			h := http.Header{"Content-Type": {"application/json"}}
			if hs, ok := spec["headers"].(map[string]any); ok {
				for k, v := range hs {
					h.Set(k, fmt.Sprint(v))
				}
			}
			status, _ := strconv.Atoi(fmt.Sprint(spec["status"]))
			return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
		case "truncate", "error_event":
			resp, err := next.RoundTrip(req)
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, err
			}
			events := replay.SplitEvents(data)
			kept := bytes.Join(events[:min(after, len(events))], nil)
			if kind == "error_event" {
				kept = append(kept, "event: error\ndata: "+string(body)+"\n\n"...)
			}
			resp.Body = io.NopCloser(bytes.NewReader(kept))
			resp.ContentLength = -1
			return resp, nil
		}
		return nil, fmt.Errorf("unknown fault kind %q", kind)
	}), nil
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
