package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
)

const hiRequest = `{"model":"claude-sonnet-4-6","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// newServer starts a Server whose runs replay testdata/stream.yaml for
// scenario "s" on "anthropic:claude-sonnet-4-6".
func newServer(t *testing.T) *replay.Server {
	t.Helper()
	srv := replay.NewUnstartedServer()
	srv.Open = func(scenario, model string) ([]string, func(string) (http.RoundTripper, error), error) {
		if scenario != "s" || model != "anthropic:claude-sonnet-4-6" {
			return nil, nil, fmt.Errorf("no scenario %q on %s", scenario, model)
		}
		return []string{"anthropic"}, func(string) (http.RoundTripper, error) { return replay.Load("testdata/stream") }, nil
	}
	srv.Faults = faults.FromSpec
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Close() })
	return srv
}

func do(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

func createRun(t *testing.T, srv *replay.Server, id string) string {
	t.Helper()
	code, data := do(t, "POST", srv.URL+"/runs", `{"scenario":"s","model":"anthropic:claude-sonnet-4-6","id":"`+id+`"}`)
	require.Equal(t, http.StatusCreated, code, string(data))
	var run struct {
		ID        string            `json:"id"`
		Providers map[string]string `json:"providers"`
	}
	require.NoError(t, json.Unmarshal(data, &run))
	assert.Equal(t, id, run.ID)
	return run.Providers["anthropic"]
}

func TestServerReplaysAStreamEventByEvent(t *testing.T) {
	srv := newServer(t)
	base := createRun(t, srv, "t1")
	assert.Equal(t, srv.URL+"/runs/t1/anthropic", base)

	req, err := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(hiRequest))
	require.NoError(t, err)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
	if diff := cmp.Diff([]string{"chunked"}, resp.TransferEncoding); diff != "" {
		t.Errorf("resp.TransferEncoding mismatch (-want +got):\n%s", diff)
	}
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"text":"Hel"`)
	assert.True(t, strings.HasSuffix(string(data), "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"))

	// The same request again: the one recorded interaction is served once.
	code, body := do(t, "POST", base+"/v1/messages", hiRequest)
	assert.Equal(t, http.StatusBadRequest, code)
	var e struct{ Error replay.Mismatch }
	require.NoError(t, json.Unmarshal(body, &e), string(body))
	assert.Equal(t, "replay_mismatch", e.Error.Type)
	assert.Contains(t, e.Error.Message, "1 identical recorded request(s) were already served")
}

// Each event is flushed as it comes: the client reads the first event
// while the rest of the body is still held back.
func TestServerFlushesEachEvent(t *testing.T) {
	srv := replay.NewUnstartedServer()
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Close() })
	release := make(chan struct{})
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("data: one\n\n"))
		<-release
		pw.Write([]byte("data: two\n\n"))
		pw.Close()
	}()
	run, err := srv.NewRun("", "s", "m", nil, func(string) (http.RoundTripper, error) {
		return roundTrip(func(req *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, ContentLength: -1}, nil
		}), nil
	})
	require.NoError(t, err)
	resp, err := http.Get(run.BaseURL("p") + "/stream")
	require.NoError(t, err)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "data: one\n", line)
	close(release)
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "\ndata: two\n\n", string(rest))
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// A request no interaction matches gets a 400 naming the scenario, the
// nearest interaction and the first differing field.
func TestServerMismatchNamesTheField(t *testing.T) {
	srv := newServer(t)
	base := createRun(t, srv, "m1")
	code, body := do(t, "POST", base+"/v1/messages", strings.Replace(hiRequest, `"max_tokens":1024`, `"max_tokens":2048`, 1))
	require.Equal(t, http.StatusBadRequest, code, string(body))
	var e struct{ Error replay.Mismatch }
	require.NoError(t, json.Unmarshal(body, &e))
	want := replay.Mismatch{
		Type: "replay_mismatch", Scenario: "s", Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic",
		Cassette: "testdata/stream.yaml", Method: "POST", Path: "/v1/messages", Interaction: 0,
		Field: "body.max_tokens", Want: "1024", Got: "2048",
	}
	got := e.Error
	got.Diff, got.Message = "", ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	assert.Contains(t, e.Error.Message, "scenario s on anthropic:claude-sonnet-4-6")
	assert.Contains(t, e.Error.Message, "interaction 0, first difference at body.max_tokens: want 1024, got 2048")
	assert.Contains(t, e.Error.Diff, `-  "max_tokens": 1024,`)

	// The run keeps it for reports.
	code, body = do(t, "GET", srv.URL+"/runs/m1", "")
	require.Equal(t, 200, code)
	assert.Contains(t, string(body), `"field": "body.max_tokens"`)
	assert.Contains(t, string(body), `"unused"`)
}

func TestServerErrorsAreJSON(t *testing.T) {
	srv := newServer(t)
	for _, tc := range []struct {
		method, path, body string
		status             int
		typ, msg           string
	}{
		{"POST", "/runs/nope/anthropic/v1/messages", hiRequest, 404, "unknown_run", `no run "nope"`},
		{"POST", "/runs", `{"scenario":"other","model":"anthropic:claude-sonnet-4-6"}`, 404, "unknown_run", `no scenario "other"`},
		{"POST", "/runs", `{"scenario":"s"}`, 400, "invalid_request", `needs "scenario" and "model"`},
		{"POST", "/runs", `{"scenario":`, 400, "invalid_request", "reading the JSON body"},
		{"GET", "/v1/messages", "", 404, "not_found", "/runs/<run-id>/<provider>/<path>"},
	} {
		code, body := do(t, tc.method, srv.URL+tc.path, tc.body)
		var e struct {
			Error struct{ Type, Message string }
		}
		require.NoError(t, json.Unmarshal(body, &e), string(body))
		assert.Equal(t, tc.status, code, tc.path)
		assert.Equal(t, tc.typ, e.Error.Type, tc.path)
		assert.Contains(t, e.Error.Message, tc.msg, tc.path)
	}
	createRun(t, srv, "dup")
	code, _ := do(t, "POST", srv.URL+"/runs", `{"scenario":"s","model":"anthropic:claude-sonnet-4-6","id":"dup"}`)
	assert.Equal(t, http.StatusConflict, code)
	code, body := do(t, "POST", srv.URL+"/runs/dup/openai/v1/responses", "{}")
	assert.Equal(t, 404, code)
	assert.Contains(t, string(body), "unknown_provider")
}

// Faults armed over the control API apply to the run's next requests:
// a status fault answers in the provider's error shape, a reset breaks
// the connection, and disarming lets requests through again.
func TestServerInjectsFaults(t *testing.T) {
	srv := newServer(t)
	base := createRun(t, srv, "f1")
	code, _ := do(t, "PUT", srv.URL+"/runs/f1/fault", `{"status": 529}`)
	require.Equal(t, http.StatusNoContent, code)
	code, body := do(t, "POST", base+"/v1/messages", hiRequest)
	assert.Equal(t, 529, code)
	assert.Contains(t, string(body), "overloaded_error")

	code, _ = do(t, "PUT", srv.URL+"/runs/f1/fault", `{"kind": "reset"}`)
	require.Equal(t, http.StatusNoContent, code)
	req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(hiRequest))
	req.Header.Set("Anthropic-Version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	assert.Error(t, err, "a reset fault must break the connection")

	code, body = do(t, "PUT", srv.URL+"/runs/f1/fault", `{"kind": "no-such-kind"}`)
	assert.Equal(t, 400, code)
	assert.Contains(t, string(body), "invalid_fault")

	code, _ = do(t, "DELETE", srv.URL+"/runs/f1/fault", "")
	require.Equal(t, http.StatusNoContent, code)
	code, body = do(t, "POST", base+"/v1/messages", hiRequest)
	assert.Equal(t, 200, code, string(body))
}

// A reset fault resets the TCP connection, before the response and mid-
// stream, so that a client reads ECONNRESET as it does in process — not
// the unexpected end of the body that an orderly close gives — after the
// events written before it.
func TestServerResetsTheConnection(t *testing.T) {
	srv := newServer(t)
	for _, tc := range []struct {
		fault      string
		wantEvents bool
	}{
		{`{"kind": "reset"}`, false},
		{`{"kind": "reset", "after_events": 2}`, true},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			base := createRun(t, srv, fmt.Sprintf("reset%v", tc.wantEvents))
			code, _ := do(t, "PUT", srv.URL+"/runs/reset"+fmt.Sprint(tc.wantEvents)+"/fault", tc.fault)
			require.Equal(t, http.StatusNoContent, code)
			req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(hiRequest))
			req.Header.Set("Anthropic-Version", "2023-06-01")
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := client.Do(req)
			var body []byte
			if err == nil {
				body, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("error %v; want ECONNRESET", err)
			}
			if got := strings.Contains(string(body), "event: message_start"); got != tc.wantEvents {
				t.Errorf("events before the reset reached the client: %v, want %v (%q)", got, tc.wantEvents, body)
			}
		})
	}
}

// A request the run's own transport cancelled (the certifying side
// cancelled the call) stays open until the client hangs up.
func TestServerWaitsForTheClientOnCancel(t *testing.T) {
	srv := replay.NewUnstartedServer()
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Close() })
	run, err := srv.NewRun("", "s", "m", nil, func(string) (http.RoundTripper, error) {
		return roundTrip(func(*http.Request) (*http.Response, error) { return nil, context.Canceled }), nil
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", run.BaseURL("p")+"/x", nil)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the server answered before the client hung up: %v", err)
	default:
	}
	for run.Requests() == 0 {
		// wait until the server has the request
		select {
		case err := <-done:
			t.Fatalf("the server answered before the client hung up: %v", err)
		default:
		}
	}
	cancel()
	assert.True(t, errors.Is(<-done, context.Canceled))
}

func TestFirstDifference(t *testing.T) {
	text := func(method, path, headers, body string) string {
		return method + " " + path + "\n" + headers + "\n" + body
	}
	base := text("POST", "/v1/messages", "anthropic-version: 2023-06-01\n", "{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"n\": 1\n}\n")
	for _, tc := range []struct {
		name, got, field, want, gotVal string
	}{
		{"same", base, "", "", ""},
		{"method", text("GET", "/v1/messages", "anthropic-version: 2023-06-01\n", ""), "method", "POST", "GET"},
		{"path", text("POST", "/v1/message", "anthropic-version: 2023-06-01\n", ""), "path", "/v1/messages", "/v1/message"},
		{"query", text("POST", "/v1/messages?alt=sse", "anthropic-version: 2023-06-01\n", ""), "query", "", "alt=sse"},
		{"header", text("POST", "/v1/messages", "anthropic-version: 2024-01-01\n", ""), "header anthropic-version", "2023-06-01", "2024-01-01"},
		{"header missing", text("POST", "/v1/messages", "", ""), "header anthropic-version", "2023-06-01", ""},
		{"nested value", strings.Replace(base, `"x"`, `"y"`, 1), "body.a[1].b", `"x"`, `"y"`},
		{"number as written", strings.Replace(base, `"n": 1`, `"n": 1.0`, 1), "body.n", "1", "1.0"},
		{"key added", strings.Replace(base, `"n": 1`, `"n": 1, "m": true`, 1), "body.m", "(absent)", "true"},
		{"array shorter", strings.Replace(base, `[1, {"b": "x"}]`, `[1]`, 1), "body.a[1]", `{"b":"x"}`, "(absent)"},
		{"not JSON", text("POST", "/v1/messages", "anthropic-version: 2023-06-01\n", "plain\n"), "body", "{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"n\": 1\n}\n", "plain\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			field, want, got := replay.FirstDifference(base, tc.got)
			if diff := cmp.Diff([]string{tc.field, tc.want, tc.gotVal}, []string{field, want, got}); diff != "" {
				t.Errorf("[]string{field, want, got} mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzFirstDifference(f *testing.F) {
	f.Add("POST /v1/messages\n\n{\"a\":1}\n", "POST /v1/messages\n\n{\"a\":2}\n")
	f.Add("GET /x?y=1\nh: v\n\n", "GET /x\n\n")
	f.Add("", "\n\n\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		field, _, _ := replay.FirstDifference(a, b)
		if a == b && field != "" {
			t.Fatalf("equal texts differ at %q", field)
		}
		if a != b && field == "" {
			t.Fatalf("different texts %q and %q have no first difference", a, b)
		}
	})
}

// ResplitStream hands out one event per Read, as bytes arrive, and then
// the stream's own error.
func TestResplitStream(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("data: a\n\ndata: b\n"))
		pw.Write([]byte("\ndata: c\r"))
		pw.Write([]byte("\n\r\npartial"))
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}()
	rt := replay.ResplitStream(roundTrip(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr}, nil
	}))
	req, _ := http.NewRequest("GET", "http://x/", nil)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	var got []string
	buf := make([]byte, 1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			got = append(got, string(buf[:n]))
		}
		if err != nil {
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			break
		}
	}
	if diff := cmp.Diff([]string{"data: a\n\n", "data: b\n\n", "data: c\r\n\r\n", "partial"}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func FuzzResplitStream(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: b\r\n\r\n"), uint8(3))
	f.Add([]byte("\r\r\r\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, step uint8) {
		n := int(step%16) + 1
		pr, pw := io.Pipe()
		go func() {
			for i := 0; i < len(body); i += n {
				pw.Write(body[i:min(i+n, len(body))])
			}
			pw.Close()
		}()
		rt := replay.ResplitStream(roundTrip(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr}, nil
		}))
		req, _ := http.NewRequest("GET", "http://x/", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		var joined bytes.Buffer
		buf := make([]byte, 1<<16)
		for {
			k, err := resp.Body.Read(buf)
			if k > 0 {
				chunk := buf[:k]
				if evs := replay.SplitEvents(chunk); len(evs) > 1 {
					t.Fatalf("one Read returned %d events: %q", len(evs), chunk)
				}
				joined.Write(chunk)
			}
			if err != nil {
				break
			}
		}
		if !bytes.Equal(joined.Bytes(), body) {
			t.Fatalf("reads concatenate to %q, want %q", joined.Bytes(), body)
		}
	})
}

// TestServerRunIDs: a run id is 1 to 64 letters, digits, '-', '_' or
// '.', anywhere in it; "" asks for a generated one; an id in use is
// refused. A removed run answers 404, and removing a run whose id was
// since given to a new run leaves the new one alone.
func TestServerRunIDs(t *testing.T) {
	srv := newServer(t)
	none := func(string) (http.RoundTripper, error) { return nil, errors.New("unused") }
	for _, tc := range []struct{ id, err string }{
		{id: "ok-1_a.B"},
		{id: strings.Repeat("x", 64)},
		{id: strings.Repeat("y", 65), err: "want letters, digits"},
		{id: " lead", err: "want letters, digits"},
		{id: "/lead", err: "want letters, digits"},
		{id: "mid dle", err: "want letters, digits"},
		{id: "trail!", err: "want letters, digits"},
		{id: "ok-1_a.B", err: `run "ok-1_a.B" exists`},
	} {
		r, err := srv.NewRun(tc.id, "s", "m", nil, none)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%q", tc.id)
			continue
		}
		if assert.NoError(t, err, "%q", tc.id) {
			assert.Equal(t, tc.id, r.ID)
		}
	}
	r, err := srv.NewRun("", "s", "m", nil, none)
	require.NoError(t, err)
	assert.Regexp(t, `^r[0-9]+$`, r.ID)

	old, err := srv.NewRun("again", "s", "m", nil, none)
	require.NoError(t, err)
	srv.Remove(old)
	code, body := do(t, "GET", srv.URL+"/runs/again", "")
	assert.Equal(t, http.StatusNotFound, code, "a removed run: %s", body)
	reused, err := srv.NewRun("again", "s", "m", nil, none)
	require.NoError(t, err, "a removed run's id is free")
	srv.Remove(old)
	code, body = do(t, "GET", srv.URL+"/runs/again", "")
	assert.Equal(t, http.StatusOK, code, "removing the old run again leaves the new one: %s", body)
	srv.Remove(reused)
	code, _ = do(t, "GET", srv.URL+"/runs/again", "")
	assert.Equal(t, http.StatusNotFound, code)
}
