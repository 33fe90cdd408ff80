package driver

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// recordedEvents is an Observer keeping what it saw.
type recordedEvents struct {
	mu  sync.Mutex
	all []adapters.Event
}

func (r *recordedEvents) Observe(_ context.Context, e adapters.Event) {
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
}

// brief is the part of an event the tests compare.
type brief struct {
	Type       adapters.EventType
	Attempt    int
	Status     int
	Class      canonical.ErrorClass
	WillRetry  bool
	Wait       time.Duration
	Latency    time.Duration
	Stop       canonical.StopReason
	Usage      canonical.TokenUsage
	Tool       string
	Reason     string
	RequestID  string
	Stream     bool
	RetryCount int
}

func (r *recordedEvents) briefs() []brief {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]brief, len(r.all))
	for i, e := range r.all {
		out[i] = brief{Type: e.Type, Attempt: e.Attempt, Status: e.Status, Class: e.ErrorClass, WillRetry: e.WillRetry,
			Wait: e.Wait, Latency: e.Latency, Stop: e.StopReason, Usage: e.Usage, Tool: e.ToolName, Reason: e.Reason,
			RequestID: e.RequestID, Stream: e.Stream, RetryCount: e.RetryCount()}
		if e.Err != nil && e.ErrorClass != e.Err.Class {
			out[i].Reason = "class differs from Err's"
		}
	}
	return out
}

func observed(s *streamServer, clock adapters.Clock, obs adapters.Observer) *Adapter {
	return newFakeAdapter(s.srv.URL+"/v1/fake", adapters.Config{Name: "fake", HTTPClient: s.client, Clock: clock, MaxRetries: 2, Observer: obs})
}

var usage10x5 = canonical.TokenUsage{InputTokens: 10, OutputTokens: 5}

// TestLifecycleEventsRetriedCall is 000 §9.3: two 529s then a success give
// three llm.call_started, two llm.call_failed (retry_count 0 and 1) each
// followed by its llm.retry_scheduled, and one llm.call_completed, with
// latencies on the call's clock. Streamed and not.
func TestLifecycleEventsRetriedCall(t *testing.T) {
	retry := map[string]string{"retry-after": "2"}
	for _, stream := range []bool{false, true} {
		ok := reply{body: `[{"t":"text","k":0,"s":"Hi"},{"t":"usage"},{"t":"stop","s":"end_turn"}]`}
		if stream {
			ok = reply{body: sse(`{"t":"text","k":0,"s":"Hi"}`, `{"t":"usage"}`, `{"t":"stop","s":"end_turn"}`)}
		}
		s := newStreamServer(reply{status: 529, header: retry, body: "busy"}, reply{status: 529, header: retry, body: "busy"}, ok)
		obs := &recordedEvents{}
		a := observed(s, newFakeClock(), obs)
		var err error
		if stream {
			_, errs := collect(a.Stream(context.Background(), testRequest()), nil)
			if len(errs) > 0 {
				err = errs[0]
			}
		} else {
			_, err = a.Complete(context.Background(), testRequest())
		}
		s.Close()
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		rl := ClassifyStatus(529)
		want := []brief{
			{Type: adapters.EventCallStarted, Attempt: 1},
			{Type: adapters.EventCallFailed, Attempt: 1, Status: 529, Class: rl, WillRetry: true},
			{Type: adapters.EventRetryScheduled, Attempt: 1, Class: rl, Wait: 2 * time.Second},
			{Type: adapters.EventCallStarted, Attempt: 2, RetryCount: 1},
			{Type: adapters.EventCallFailed, Attempt: 2, Status: 529, Class: rl, WillRetry: true, Latency: 2 * time.Second, RetryCount: 1},
			{Type: adapters.EventRetryScheduled, Attempt: 2, Class: rl, Wait: 2 * time.Second, RetryCount: 1},
			{Type: adapters.EventCallStarted, Attempt: 3, RetryCount: 2},
			{Type: adapters.EventCallCompleted, Attempt: 3, Status: 200, Latency: 4 * time.Second, Stop: canonical.StopEndTurn, Usage: usage10x5, RetryCount: 2},
		}
		for i := range want {
			want[i].RequestID, want[i].Stream = "req_01TEST", stream
		}
		if diff := cmp.Diff(want, obs.briefs()); diff != "" {
			t.Errorf("stream=%v: events (-want +got)\n%s", stream, diff)
		}
	}
}

// TestLifecycleEventsFailures: a call that fails for good ends with an
// llm.call_failed that will not be retried, whether the failure is a
// status, a stream that breaks after its 2xx, or a cancellation.
func TestLifecycleEventsFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rep    reply
		stream bool
		last   brief
	}{
		{"status, not retried", reply{status: 400, body: "bad"}, false,
			brief{Type: adapters.EventCallFailed, Attempt: 1, Status: 400, Class: canonical.ErrInvalidRequest}},
		{"malformed body", reply{body: `[{"t":`}, false,
			brief{Type: adapters.EventCallFailed, Attempt: 1, Status: 200, Class: canonical.ErrServer}},
		{"stream error event", reply{body: sse(evText, `{"t":"error","s":"x"}`)}, true,
			brief{Type: adapters.EventCallFailed, Attempt: 1, Status: 200, Class: canonical.ErrServer, Stop: canonical.StopError}},
		{"truncated stream", reply{body: sse(evText)}, true,
			brief{Type: adapters.EventCallFailed, Attempt: 1, Status: 200, Class: canonical.ErrNetwork, Stop: canonical.StopError}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStreamServer(tc.rep)
			defer s.Close()
			obs := &recordedEvents{}
			a := observed(s, newFakeClock(), obs)
			if tc.stream {
				collect(a.Stream(context.Background(), testRequest()), nil)
			} else {
				a.Complete(context.Background(), testRequest()) //nolint:errcheck // the events are checked
			}
			got := obs.briefs()
			tc.last.RequestID, tc.last.Stream = "req_01TEST", tc.stream
			want := []brief{{Type: adapters.EventCallStarted, Attempt: 1, RequestID: "req_01TEST", Stream: tc.stream}, tc.last}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-want +got)\n%s", diff)
			}
		})
	}

	t.Run("consumer stops early", func(t *testing.T) {
		s := newStreamServer(reply{body: sse(evText, evText, `{"t":"stop","s":"end_turn"}`)})
		defer s.Close()
		obs := &recordedEvents{}
		a := observed(s, newFakeClock(), obs)
		collect(a.Stream(context.Background(), testRequest()), func(canonical.StreamEvent) bool { return false })
		got := obs.briefs()
		if len(got) != 2 || got[1].Type != adapters.EventCallFailed || got[1].Class != canonical.ErrCancelled {
			t.Errorf("events %+v, want started then failed with class cancelled", got)
		}
	})
}

// TestToolInputInvalidEvent: a tool call whose input fails its schema is
// kept and marked, on both paths, with one tool_input_invalid event and
// one WARN, and its tool.use_end carries the reason; a cancelled input is
// not checked.
func TestToolInputInvalidEvent(t *testing.T) {
	req := testRequest()
	req.Tools = []canonical.ToolDefinition{{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	bad := []string{evText, `{"t":"tool","k":1,"id":"toolu_1","name":"read_file"}`, `{"t":"args","k":1,"s":"{\"path\":42}"}`, evEnd, evStop}
	const reason = "input#/path: got number, want string"
	for _, stream := range []bool{false, true} {
		body := "[" + bad[0] + "," + bad[1] + "," + bad[2] + "," + bad[3] + "," + bad[4] + "]"
		if stream {
			body = sse(bad...)
		}
		s := newStreamServer(reply{body: body})
		obs := &recordedEvents{}
		logs := &captureHandler{}
		a := newFakeAdapter(s.srv.URL+"/v1/fake", adapters.Config{Name: "fake", HTTPClient: s.client, Observer: obs, Logger: slog.New(logs)})
		var resp *canonical.Response
		var ends []canonical.StreamEvent
		if stream {
			evs, errs := collect(a.Stream(context.Background(), req), nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			resp = evs[len(evs)-1].Response
			for _, ev := range evs {
				if ev.Type == canonical.EventToolUseEnd {
					ends = append(ends, ev)
				}
			}
			if len(ends) != 1 || ends[0].InputError != reason {
				t.Errorf("tool.use_end events %+v, want one carrying %q", ends, reason)
			}
		} else {
			var err error
			if resp, err = a.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		tus := resp.Content.ToolUses()
		if len(tus) != 1 || tus[0].InputError != reason || string(tus[0].Input) != `{"path":42}` {
			t.Errorf("stream=%v: tool uses %+v, want the input kept and marked %q", stream, tus, reason)
		}
		var inv []brief
		for _, b := range obs.briefs() {
			if b.Type == adapters.EventToolInputInvalid {
				inv = append(inv, b)
			}
		}
		want := []brief{{Type: adapters.EventToolInputInvalid, Tool: "read_file", Reason: reason, RequestID: "req_01TEST", Stream: stream}}
		if diff := cmp.Diff(want, inv); diff != "" {
			t.Errorf("stream=%v: tool_input_invalid (-want +got)\n%s", stream, diff)
		}
		warns := 0
		for _, r := range logs.all() {
			if r.Message == ToolInputInvalidMsg && attrs(r)["tool_use_id"] == tus[0].ID && attrs(r)["reason"] == reason {
				warns++
			}
		}
		if warns != 1 {
			t.Errorf("stream=%v: %d WARN entries for the invalid input, want 1", stream, warns)
		}
	}

	t.Run("cancelled input is not checked", func(t *testing.T) {
		s := newStreamServer(reply{body: sse(`{"t":"tool","k":1,"id":"toolu_1","name":"read_file"}`, `{"t":"args","k":1,"s":"{\"pa"}`) + "HANG"})
		defer s.Close()
		obs := &recordedEvents{}
		a := newFakeAdapter(s.srv.URL+"/v1/fake", adapters.Config{Name: "fake", HTTPClient: s.client, Observer: obs})
		evs, _ := collect(a.Stream(context.Background(), req), func(ev canonical.StreamEvent) bool {
			if ev.Type == canonical.EventToolUseInput {
				a.Cancel(req.RequestID)
			}
			return true
		})
		final := evs[len(evs)-1].Response
		if final.StopReason != canonical.StopCancelled || final.Content.ToolUses()[0].InputError != "" {
			t.Errorf("final %+v, want cancelled with the cut input unmarked", final)
		}
		for _, b := range obs.briefs() {
			if b.Type == adapters.EventToolInputInvalid {
				t.Errorf("unexpected %+v", b)
			}
		}
	})
}

// TestEventsCostNothing: delivering an event allocates nothing, with no
// observer and with one.
func TestEventsCostNothing(t *testing.T) {
	resp := &canonical.Response{Usage: usage10x5, StopReason: canonical.StopEndTurn}
	ctx := context.Background()
	c := &Call{Request: testRequest(), Stream: true}
	for _, obs := range []adapters.Observer{nil, adapters.ObserverFunc(func(context.Context, adapters.Event) {})} {
		a := newFakeAdapter("http://127.0.0.1:1", adapters.Config{Name: "fake", Observer: obs})
		a.caller.Observer = obs
		clock := adapters.RealClock{}
		ae := canonical.NewError(canonical.ErrServer, "", "x")
		allocs := testing.AllocsPerRun(100, func() {
			ev := a.event(c, "")
			a.finished(ctx, &ev, 1, 200, resp, nil)
			a.caller.failed(ctx, &ev, clock, 1, 500, ae, true)
		})
		if allocs != 0 {
			t.Errorf("observer %v: %v allocations per event, want 0", obs != nil, allocs)
		}
	}
}
