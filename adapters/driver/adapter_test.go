package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// The fake wire format of these tests: SSE events whose data is a small
// JSON command the fake decoder turns into Assembler calls.
type fakeEvent struct {
	T    string `json:"t"`
	K    int    `json:"k"`
	S    string `json:"s"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

func fakeDecodeStream(body io.Reader, a *Assembler) error {
	r := NewSSEReader(body)
	var e fakeEvent
	for !a.Stopped() {
		ev, err := r.Next()
		if err == io.EOF {
			return nil // truncated: no "stop"
		}
		if err != nil {
			return err
		}
		e = fakeEvent{}
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return InvalidResponse("fake", err, "event %q: %v", ev.Event, err)
		}
		if done, err := applyFake(a, e); done || err != nil {
			return err
		}
	}
	return nil
}

func fakeDecodeBody(body []byte, a *Assembler) error {
	var events []fakeEvent
	if err := json.Unmarshal(body, &events); err != nil {
		return err // left unclassified on purpose: Complete must classify it
	}
	for _, e := range events {
		if done, err := applyFake(a, e); done || err != nil {
			return err
		}
	}
	return nil
}

func applyFake(a *Assembler, e fakeEvent) (done bool, err error) {
	switch e.T {
	case "text":
		a.TextDelta(e.K, e.S)
	case "tool":
		a.ToolStart(e.K, e.ID, e.Name)
	case "args":
		_, err = a.ToolInputDelta(e.K, e.S)
	case "end":
		a.EndBlock(e.K)
	case "usage":
		a.UsageUpdate(canonical.TokenUsage{InputTokens: 10, OutputTokens: 5})
	case "stop":
		a.Finish(canonical.StopReason(e.S), e.S)
		return true, nil
	case "error":
		return true, HTTPError(canonical.ErrServer, canonical.CodeOverloaded, 0, e.S)
	case "panic":
		panic("decoder bug")
	}
	return false, err
}

func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "event: x\ndata: %s\n\n", e)
	}
	return b.String()
}

var (
	evText  = `{"t":"text","k":0,"s":"Hello"}`
	evTool  = `{"t":"tool","k":1,"id":"toolu_1","name":"read_file"}`
	evArgs1 = `{"t":"args","k":1,"s":"{\"path\": \"REA"}`
	evArgs2 = `{"t":"args","k":1,"s":"DME.md\"}"}`
	evEnd   = `{"t":"end","k":1}`
	evStop  = `{"t":"stop","s":"tool_use"}`
)

// trackingTransport counts response bodies handed out and closed.
type trackingTransport struct {
	base           http.RoundTripper
	opened, closed atomic.Int32
}

type trackedBody struct {
	io.ReadCloser
	once   sync.Once
	closed *atomic.Int32
}

func (b *trackedBody) Close() error {
	b.once.Do(func() { b.closed.Add(1) })
	return b.ReadCloser.Close()
}

func (t *trackingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if resp != nil {
		t.opened.Add(1)
		resp.Body = &trackedBody{ReadCloser: resp.Body, closed: &t.closed}
	}
	return resp, err
}

// streamServer serves the scripted bodies in order (the last repeats).
// A body "HANG" flushes what came before it and then waits until the
// client goes away, recording that in gone.
type streamServer struct {
	srv    *httptest.Server
	tr     *trackingTransport
	client *http.Client
	bodies []reply
	n      atomic.Int32
	hung   chan struct{} // a HANG handler is waiting
	gone   chan struct{} // a HANG handler saw the client go away
}

func newStreamServer(bodies ...reply) *streamServer {
	s := &streamServer{bodies: bodies, hung: make(chan struct{}, 8), gone: make(chan struct{}, 8)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(s.n.Add(1)) - 1
		rep := s.bodies[min(i, len(s.bodies)-1)]
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status == 0 {
			rep.status = 200
		}
		w.WriteHeader(rep.status)
		head, hang := strings.CutSuffix(rep.body, "HANG")
		io.WriteString(w, head)
		w.(http.Flusher).Flush()
		if hang {
			s.hung <- struct{}{}
			<-r.Context().Done()
			s.gone <- struct{}{}
		}
	}))
	s.tr = &trackingTransport{base: s.srv.Client().Transport}
	s.client = &http.Client{Transport: s.tr}
	return s
}

func (s *streamServer) Close() {
	s.client.CloseIdleConnections()
	s.srv.Close()
}

// fakeProvider speaks the fake wire format to a streamServer.
type fakeProvider struct{ url string }

func (p fakeProvider) Capabilities(Model) canonical.Capabilities {
	return canonical.Capabilities{SupportsStreaming: true, SupportsTools: true, SupportsSystemPrompt: true}
}

func (p fakeProvider) Encode(c *Call) (*Request, error) {
	return &Request{URL: p.url, Body: []byte(`{}`)}, nil
}

func (p fakeProvider) Authorize(h http.Header, key string) { h.Set("x-fake-key", key) }

func (p fakeProvider) DecodeBody(_ *Call, body []byte, a *Assembler) error {
	return fakeDecodeBody(body, a)
}

func (p fakeProvider) DecodeStream(_ *Call, body io.Reader, a *Assembler) error {
	return fakeDecodeStream(body, a)
}

func (p fakeProvider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return DefaultClassify(status, h, body)
}

func (s *streamServer) runtime(clock adapters.Clock, attempts *[]adapters.Attempt) *Adapter {
	var mu sync.Mutex
	return newFakeAdapter(s.srv.URL+"/v1/fake", adapters.Config{
		Name:       "fake",
		HTTPClient: s.client,
		Clock:      clock,
		MaxRetries: 2,
		OnAttempt: func(a adapters.Attempt) {
			if attempts != nil {
				mu.Lock()
				*attempts = append(*attempts, a)
				mu.Unlock()
			}
		},
	})
}

// newFakeAdapter is the driver's Adapter on fakeProvider.
func newFakeAdapter(url string, cfg adapters.Config) *Adapter {
	a, err := New(cfg, Info{Name: "fake"}, func(*adapters.Config) (Provider, error) { return fakeProvider{url: url}, nil })
	if err != nil {
		panic(err)
	}
	return a
}

func (s *streamServer) newReq(ctx context.Context) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodPost, s.srv.URL+"/v1/fake", strings.NewReader(`{}`))
}

func testRequest() *canonical.Request {
	return &canonical.Request{RequestID: "req_01TEST", Model: "fake:model", Stream: true, Messages: []canonical.Message{
		{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}}
}

// collect ranges over a stream, calling onEvent (if set) after each event.
func collect(seq func(func(canonical.StreamEvent, error) bool), onEvent func(canonical.StreamEvent) bool) (events []canonical.StreamEvent, errs []error) {
	for ev, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		events = append(events, ev)
		if onEvent != nil && !onEvent(ev) {
			break
		}
	}
	return events, errs
}

func eventTypes(events []canonical.StreamEvent) []canonical.EventType {
	out := make([]canonical.EventType, len(events))
	for i, ev := range events {
		out[i] = ev.Type
	}
	return out
}

func TestAdapterStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{status: 503}, reply{body: sse(evText, evTool, evArgs1, evArgs2, evEnd, `{"t":"usage"}`, evStop)})
	defer s.Close()
	var attempts []adapters.Attempt
	clock := newFakeClock()
	rt := s.runtime(clock, &attempts)

	events, errs := collect(rt.Stream(context.Background(), testRequest()), nil)
	require.Empty(t, errs)
	checkStreamInvariants(t, events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta", "tool.use_start", "tool.use_input_delta",
		"tool.use_input_delta", "tool.use_end", "usage.update", "message.complete"}, eventTypes(events)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	for _, ev := range events {
		assert.Equal(t, "req_01TEST", ev.MessageID)
	}
	resp := events[len(events)-1].Response
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 10, OutputTokens: 5}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "fake", resp.Provider)
	uses := resp.Content.ToolUses()
	require.Len(t, uses, 1)
	assert.JSONEq(t, `{"path": "README.md"}`, string(uses[0].Input))
	assert.Nil(t, resp.RawBody, "streamed calls keep no raw body")

	assert.Len(t, attempts, 2, "one retry of the 503 before the body")
	sleeps := clock.Sleeps()
	require.Len(t, sleeps, 1)
	assert.GreaterOrEqual(t, sleeps[0], time.Second)
	assert.Less(t, sleeps[0], 1250*time.Millisecond)
	assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load(), "every body closed")
	assert.Zero(t, rt.cancels.Len(), "the call is released")
}

func TestAdapterStreamFailureBeforeBody(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{status: 401, body: `{"error":"bad key"}`})
	defer s.Close()
	rt := s.runtime(newFakeClock(), nil)

	events, errs := collect(rt.Stream(context.Background(), testRequest()), nil)
	assert.Empty(t, events, "no message.start before a failure without a body")
	require.Len(t, errs, 1)
	assert.Equal(t, canonical.ErrAuth, canonical.ClassOf(errs[0]))
	assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load())
}

func TestAdapterStreamFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  string
		class canonical.ErrorClass
		code  string
	}{
		{"truncated", sse(evText, evTool, evArgs1), canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"truncated mid-event", sse(evText) + "data: {\"t\":\"te", canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"provider error event", sse(evText, `{"t":"error","s":"Overloaded"}`), canonical.ErrServer, canonical.CodeOverloaded},
		{"malformed JSON", sse(evText, `{"t":`), canonical.ErrServer, canonical.CodeInvalidResponse},
		{"decoder panic", sse(evText, `{"t":"panic"}`), canonical.ErrServer, canonical.CodeInvalidResponse},
		{"args for no tool", sse(evText, `{"t":"args","k":7,"s":"{}"}`), canonical.ErrServer, canonical.CodeInvalidResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			s := newStreamServer(reply{body: tc.body})
			defer s.Close()
			rt := s.runtime(newFakeClock(), nil)

			events, errs := collect(rt.Stream(context.Background(), testRequest()), nil)
			checkStreamInvariants(t, events)
			resp := events[len(events)-1].Response
			assert.Equal(t, canonical.StopError, resp.StopReason)
			assert.Equal(t, "Hello", resp.Content.Text(), "partial content is kept")
			require.Len(t, errs, 1, "the error follows message.complete")
			var ae *canonical.AdapterError
			require.ErrorAs(t, errs[0], &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, "fake", ae.Provider)
			assert.Equal(t, "req_01TEST", ae.RequestID)
			assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load())
		})
	}
}

// TestRuntimeCancelMidStream cancels in the middle of a tool's input,
// once through Cancel(requestID) and once through the caller's context,
// while the server holds the stream open.
func TestAdapterCancelMidStream(t *testing.T) {
	for _, how := range []string{"Cancel", "ctx"} {
		t.Run(how, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			s := newStreamServer(reply{body: sse(evText, evTool, evArgs1) + "HANG"})
			defer s.Close()
			rt := s.runtime(newFakeClock(), nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := testRequest()

			events, errs := collect(rt.Stream(ctx, req), func(ev canonical.StreamEvent) bool {
				if ev.Type == canonical.EventToolUseInput {
					if how == "Cancel" {
						assert.True(t, rt.Cancel(req.RequestID))
					} else {
						cancel()
					}
				}
				return true
			})
			<-s.gone // the server saw the client go away: the request was aborted

			assert.Empty(t, errs, "a cancelled stream yields no error")
			checkStreamInvariants(t, events)
			if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta", "tool.use_start",
				"tool.use_input_delta", "tool.use_end", "message.complete"}, eventTypes(events)); diff != "" {
				t.Errorf("event types (-want +got):\n%s", diff)
			}
			assert.Equal(t, `{}`, string(events[4].FinalInput), "partial input gives {}")
			resp := events[5].Response
			assert.Equal(t, canonical.StopCancelled, resp.StopReason)
			assert.Equal(t, "Hello", resp.Content.Text())
			assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load(), "the body is closed")
			assert.False(t, rt.Cancel(req.RequestID), "Cancel after the call ended finds nothing")
			assert.Zero(t, rt.cancels.Len())
		})
	}
}

func TestAdapterDeadlineMidStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{body: sse(evText) + "HANG"})
	defer s.Close()
	rt := s.runtime(newFakeClock(), nil)
	ctx := newDeadlineCtx()

	events, errs := collect(rt.Stream(ctx, testRequest()), func(ev canonical.StreamEvent) bool {
		if ev.Type == canonical.EventTextDelta {
			ctx.expire()
		}
		return true
	})
	<-s.gone
	checkStreamInvariants(t, events)
	assert.Equal(t, canonical.StopError, events[len(events)-1].Response.StopReason)
	require.Len(t, errs, 1)
	assert.Equal(t, canonical.ErrNetwork, canonical.ClassOf(errs[0]))
	assert.Equal(t, canonical.CodeTimeout, canonical.CodeOf(errs[0]))
}

func TestAdapterConsumerStopsEarly(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{body: sse(evText, evTool) + "HANG"})
	defer s.Close()
	rt := s.runtime(newFakeClock(), nil)

	events, errs := collect(rt.Stream(context.Background(), testRequest()), func(ev canonical.StreamEvent) bool {
		return ev.Type != canonical.EventTextDelta
	})
	<-s.gone
	assert.Empty(t, errs)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta"}, eventTypes(events)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load())
	assert.Zero(t, rt.cancels.Len())
}

func TestAdapterComplete(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	body := `[` + strings.Join([]string{evText, evTool, evArgs1, evArgs2, evEnd, evStop}, ",") + `]`
	s := newStreamServer(reply{status: 500}, reply{body: body})
	defer s.Close()
	var attempts []adapters.Attempt
	rt := s.runtime(newFakeClock(), &attempts)

	resp, err := rt.Complete(context.Background(), testRequest())
	require.NoError(t, err)
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	assert.Equal(t, "Hello", resp.Content.Text())
	uses := resp.Content.ToolUses()
	require.Len(t, uses, 1)
	assert.JSONEq(t, `{"path": "README.md"}`, string(uses[0].Input))
	assert.Equal(t, body, string(resp.RawBody), "the body is kept verbatim")
	assert.Equal(t, "req_01TEST", resp.RequestID)
	assert.Len(t, attempts, 2)
	assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load())
}

func TestAdapterCompleteFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rep   reply
		class canonical.ErrorClass
		code  string
	}{
		{"HTTP error", reply{status: 400, body: "bad"}, canonical.ErrInvalidRequest, ""},
		{"malformed body", reply{body: `[{"t":`}, canonical.ErrServer, canonical.CodeInvalidResponse},
		{"no final state", reply{body: `[` + evText + `]`}, canonical.ErrServer, canonical.CodeInvalidResponse},
		{"provider error", reply{body: `[{"t":"error","s":"x"}]`}, canonical.ErrServer, canonical.CodeOverloaded},
		{"decoder panic", reply{body: `[{"t":"panic"}]`}, canonical.ErrServer, canonical.CodeInvalidResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStreamServer(tc.rep)
			defer s.Close()
			rt := s.runtime(newFakeClock(), nil)
			resp, err := rt.Complete(context.Background(), testRequest())
			assert.Nil(t, resp)
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, "fake", ae.Provider)
			assert.Equal(t, "req_01TEST", ae.RequestID)
			if tc.code == canonical.CodeInvalidResponse {
				assert.False(t, ae.Retryable, "an invalid response is not retried: the call may have had effects")
			}
		})
	}
}

func TestAdapterCompleteCancelled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newStreamServer(reply{body: `[` + evText + "HANG"})
	defer s.Close()
	rt := s.runtime(newFakeClock(), nil)
	req := testRequest()

	errc := make(chan error, 1)
	go func() {
		_, err := rt.Complete(context.Background(), req)
		errc <- err
	}()
	<-s.hung // the server has the request and holds the body open
	require.True(t, rt.Cancel(req.RequestID))
	err := <-errc
	<-s.gone
	assert.Equal(t, canonical.ErrCancelled, canonical.ClassOf(err))
	assert.Equal(t, s.tr.opened.Load(), s.tr.closed.Load())
}

func TestAdapterCancelUnknown(t *testing.T) {
	rt := newFakeAdapter("http://127.0.0.1:1", adapters.Config{})
	assert.False(t, rt.Cancel("req_nope"))
}
