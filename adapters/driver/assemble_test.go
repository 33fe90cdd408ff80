package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// recorder collects what an Assembler yields. stopAfter > 0 makes the
// consumer stop after that many events.
type recorder struct {
	events    []canonical.StreamEvent
	errs      []error
	stopAfter int
	yields    int
}

func (r *recorder) yield(ev canonical.StreamEvent, err error) bool {
	r.yields++
	if err != nil {
		r.errs = append(r.errs, err)
		return true
	}
	r.events = append(r.events, ev)
	return r.stopAfter == 0 || len(r.events) < r.stopAfter
}

func (r *recorder) types() []canonical.EventType {
	out := make([]canonical.EventType, len(r.events))
	for i, ev := range r.events {
		out[i] = ev.Type
	}
	return out
}

func (r *recorder) last() canonical.StreamEvent { return r.events[len(r.events)-1] }

// checkStreamInvariants asserts the event invariants of 000 §5.2 for one
// complete message.
func checkStreamInvariants(t *testing.T, events []canonical.StreamEvent) {
	t.Helper()
	require.NotEmpty(t, events)
	assert.Equal(t, canonical.EventMessageStart, events[0].Type, "message.start first")
	assert.Equal(t, canonical.EventMessageComplete, events[len(events)-1].Type, "message.complete last")
	id := events[0].MessageID
	lastIndex := -1
	open := map[string]bool{}
	ended := map[string]bool{}
	for i, ev := range events {
		assert.Equal(t, id, ev.MessageID, "event %d message id", i)
		if i > 0 && ev.Type == canonical.EventMessageStart {
			t.Errorf("event %d: second message.start", i)
		}
		if i < len(events)-1 && ev.Type == canonical.EventMessageComplete {
			t.Errorf("event %d: message.complete before the end", i)
		}
		switch ev.Type {
		case canonical.EventTextDelta, canonical.EventThinkingDelta, canonical.EventToolUseStart, canonical.EventToolUseInput, canonical.EventToolUseEnd:
			assert.GreaterOrEqual(t, ev.Index, lastIndex, "event %d (%s): index went back", i, ev.Type)
			lastIndex = ev.Index
		}
		switch ev.Type {
		case canonical.EventToolUseStart:
			assert.False(t, open[ev.ToolUseID] || ended[ev.ToolUseID], "event %d: second tool.use_start for %s", i, ev.ToolUseID)
			open[ev.ToolUseID] = true
		case canonical.EventToolUseInput:
			assert.True(t, open[ev.ToolUseID], "event %d: input delta outside start/end", i)
		case canonical.EventToolUseEnd:
			assert.True(t, open[ev.ToolUseID], "event %d: tool.use_end without start", i)
			open[ev.ToolUseID], ended[ev.ToolUseID] = false, true
			var obj map[string]any
			assert.NoError(t, json.Unmarshal(ev.FinalInput, &obj), "event %d: final_input %s is not an object", i, ev.FinalInput)
		}
	}
	for id, o := range open {
		assert.False(t, o, "tool %s never ended", id)
	}
	require.NotNil(t, events[len(events)-1].Response)
}

func newTestAssembler(r *recorder) (*Assembler, *adapters.ToolIDMap) {
	ids := adapters.NewToolIDMap()
	var yield func(canonical.StreamEvent, error) bool
	if r != nil {
		yield = r.yield
	}
	return NewAssembler(yield, "anthropic", "anthropic:claude-sonnet-4-6", "req_1", ids), ids
}

func TestAssemblerText(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	require.True(t, a.TextDelta(0, "Hel"))
	require.True(t, a.TextDelta(0, ""))
	require.True(t, a.TextDelta(0, "lo"))
	require.True(t, a.EndBlock(0))
	resp := a.Finish(canonical.StopEndTurn, "end_turn")

	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta", "text.delta", "message.complete"}, r.types()); diff != "" {
		t.Errorf("an empty delta is not emitted (-want +got):\n%s", diff)
	}
	assert.Equal(t, "anthropic:claude-sonnet-4-6", r.events[0].Model)
	assert.Equal(t, "Hel", r.events[1].Text)
	assert.Equal(t, "lo", r.events[2].Text)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hello"}}, resp.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	assert.Equal(t, "end_turn", resp.ProviderStopReason)
	assert.Equal(t, "req_1", resp.RequestID)
	assert.Equal(t, "anthropic", resp.Provider)
	if diff := cmp.Diff(resp.Content, r.last().Response.Content); diff != "" {
		t.Errorf("message.complete content (-want +got):\n%s", diff)
	}
	assert.Empty(t, r.errs)
	assert.True(t, a.Finished())
}

func TestAssemblerThinkingWithSignature(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	a.ThinkingDelta(0, "Let me think")
	a.ThinkingDelta(0, "") // Anthropic sends an empty thinking_delta before the signature
	a.ThinkingSignature(0, "EqEECkYICxgCKkAo")
	a.EndBlock(0)
	a.TextDelta(1, "Answer")
	a.Finish(canonical.StopEndTurn, "end_turn")

	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "thinking.delta", "thinking.delta", "text.delta", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	sig := r.events[2]
	assert.Equal(t, 0, sig.Index)
	assert.Equal(t, "EqEECkYICxgCKkAo", sig.Signature)
	assert.Empty(t, sig.Text)
	assert.Equal(t, 1, r.events[3].Index)
	if diff := cmp.Diff(canonical.Blocks{
		canonical.ThinkingBlock{Text: "Let me think", Signature: "EqEECkYICxgCKkAo"},
		canonical.TextBlock{Text: "Answer"},
	}, r.last().Response.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

func TestAssemblerRedactedThinking(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	a.RedactedThinking(0, "EmwKAhgBEgy3")
	a.TextDelta(1, "ok")
	a.Finish(canonical.StopEndTurn, "")
	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical.Blocks{canonical.RedactedThinkingBlock{Data: "EmwKAhgBEgy3"}, canonical.TextBlock{Text: "ok"}}, r.last().Response.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

func TestAssemblerToolFragments(t *testing.T) {
	r := &recorder{}
	a, ids := newTestAssembler(r)
	a.TextDelta(0, "Reading.")
	id, ok := a.ToolStart(1, "toolu_01A", "read_file")
	require.True(t, ok)
	for _, frag := range []string{"", `{"pa`, `th": "REA`, `DME.md"}`} {
		ok, err := a.ToolInputDelta(1, frag)
		require.NoError(t, err)
		require.True(t, ok)
	}
	a.EndBlock(1)
	a.Finish(canonical.StopToolUse, "tool_use")

	checkStreamInvariants(t, r.events)
	assert.True(t, canonical.IsToolUseID(id), "canonical id %q", id)
	assert.Equal(t, id, ids.Canonical("anthropic", "toolu_01A"), "the provider id maps to the canonical id")
	assert.Equal(t, "toolu_01A", ids.Wire("anthropic", id))
	if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta", "tool.use_start", "tool.use_input_delta",
		"tool.use_input_delta", "tool.use_input_delta", "tool.use_end", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	start := r.events[2]
	assert.Equal(t, 1, start.Index)
	assert.Equal(t, id, start.ToolUseID)
	assert.Equal(t, "read_file", start.ToolName)
	// Fragments go out verbatim (000 §5.4).
	assert.Equal(t, `{"pa`, r.events[3].PartialJSON)
	assert.Equal(t, `th": "REA`, r.events[4].PartialJSON)
	assert.Equal(t, `DME.md"}`, r.events[5].PartialJSON)
	assert.JSONEq(t, `{"path": "README.md"}`, string(r.events[6].FinalInput))
	if diff := cmp.Diff(canonical.Blocks{
		canonical.TextBlock{Text: "Reading."},
		canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(`{"path": "README.md"}`)},
	}, r.last().Response.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

func TestAssemblerFinalInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frags []string
		final string
		want  string
	}{
		{"fragments", []string{`{"a":`, `1}`}, "", `{"a":1}`},
		{"authoritative final wins", []string{`{"a":1}`}, `{"a":2}`, `{"a":2}`},
		{"final without fragments", nil, `{"b":[1,2]}`, `{"b":[1,2]}`},
		{"unparseable fragments give {}", []string{`{"a":`}, "", `{}`},
		{"non-object fragments give {}", []string{`[1,2]`}, "", `{}`},
		{"non-object final falls back to fragments", []string{`{"c":true}`}, `"str"`, `{"c":true}`},
		{"nothing gives {}", nil, "", `{}`},
		{"whitespace before the object", []string{" \n{}"}, "", " \n{}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			a, _ := newTestAssembler(r)
			a.ToolStart(0, "call_1", "f")
			for _, f := range tc.frags {
				_, err := a.ToolInputDelta(0, f)
				require.NoError(t, err)
			}
			if tc.final != "" {
				a.ToolInputFinal(0, json.RawMessage(tc.final))
			}
			a.Finish(canonical.StopToolUse, "")
			checkStreamInvariants(t, r.events)
			end := r.events[len(r.events)-2]
			require.Equal(t, canonical.EventToolUseEnd, end.Type)
			assert.Equal(t, tc.want, string(end.FinalInput))
			uses := r.last().Response.Content.ToolUses()
			require.Len(t, uses, 1)
			assert.Equal(t, tc.want, string(uses[0].Input))
		})
	}
}

func TestAssemblerOpeningABlockClosesThePrevious(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	a.TextDelta(0, "a")
	idA, _ := a.ToolStart(1, "call_a", "f")
	a.ToolInputDelta(1, `{"x":1}`)
	idB, _ := a.ToolStart(2, "call_b", "g") // closes tool a
	a.ToolInputDelta(2, `{"y":`)
	a.TextDelta(0, "b") // key 0 was closed: a new text block at index 3
	a.Finish(canonical.StopToolUse, "")

	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "text.delta", "tool.use_start", "tool.use_input_delta",
		"tool.use_end", "tool.use_start", "tool.use_input_delta", "tool.use_end", "text.delta", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	assert.Equal(t, idA, r.events[4].ToolUseID)
	assert.Equal(t, `{"x":1}`, string(r.events[4].FinalInput))
	assert.Equal(t, idB, r.events[7].ToolUseID)
	assert.Equal(t, `{}`, string(r.events[7].FinalInput))
	assert.Equal(t, 3, r.events[8].Index)
	assert.Len(t, r.last().Response.Content, 4)
}

func TestAssemblerRepeatedToolStart(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	id1, _ := a.ToolStart(0, "call_1", "f")
	id2, _ := a.ToolStart(0, "call_1", "f")
	assert.Equal(t, id1, id2)
	a.Finish(canonical.StopToolUse, "")
	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "tool.use_start", "tool.use_end", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
}

func TestAssemblerToolWithoutProviderID(t *testing.T) {
	a, ids := newTestAssembler(nil)
	id, ok := a.ToolStart(0, "", "f") // Gemini function calls may carry no id
	require.True(t, ok)
	assert.True(t, canonical.IsToolUseID(id))
	assert.Equal(t, id, ids.Wire("anthropic", id), "the canonical id is recorded as the wire id")
	assert.Equal(t, id, ids.Canonical("anthropic", id))
}

func TestAssemblerToolInputDeltaWithoutTool(t *testing.T) {
	a, _ := newTestAssembler(&recorder{})
	a.TextDelta(0, "x")
	for _, key := range []int{0, 5} {
		_, err := a.ToolInputDelta(key, "{}")
		require.Error(t, err)
		assert.Equal(t, canonical.ErrServer, canonical.ClassOf(err))
		assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err))
	}
}

func TestAssemblerUsage(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	a.UsageUpdate(canonical.TokenUsage{InputTokens: 43, OutputTokens: 1})
	a.TextDelta(0, "x")
	a.SetUsage(canonical.TokenUsage{InputTokens: 43, OutputTokens: 9})
	resp := a.Finish(canonical.StopEndTurn, "")
	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "usage.update", "text.delta", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&canonical.TokenUsage{InputTokens: 43, OutputTokens: 1}, r.events[1].Usage); diff != "" {
		t.Errorf("usage.update's usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 43, OutputTokens: 9}, resp.Usage); diff != "" {
		t.Errorf("a later SetUsage replaces, never sums (-want +got):\n%s", diff)
	}
}

func TestAssemblerLatency(t *testing.T) {
	began := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, _ := newTestAssembler(nil)
	a.SetClock(began, func() time.Time { return began.Add(1234 * time.Millisecond) })
	assert.Equal(t, int64(1234), a.Finish(canonical.StopEndTurn, "").LatencyMS)
}

func TestAssemblerFinishTwice(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	a.TextDelta(0, "x")
	first := a.Finish(canonical.StopEndTurn, "")
	second := a.Finish(canonical.StopMaxTokens, "")
	assert.Same(t, first, second)
	assert.Equal(t, canonical.StopEndTurn, second.StopReason)
	assert.Len(t, r.events, 3, "one message.complete")
}

func TestAssemblerFailCancelled(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() context.Context
		err  error
	}{
		{"ctx cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, errors.New("read: connection closed")},
		{"Cancel(requestID)", func() context.Context {
			var c Cancels
			ctx, done := c.Track(context.Background(), "req_1", 0)
			t.Cleanup(done)
			c.Cancel("req_1")
			return ctx
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			a, _ := newTestAssembler(r)
			a.TextDelta(0, "partial")
			a.ToolStart(1, "toolu_1", "read_file")
			a.ToolInputDelta(1, `{"path": "REA`)
			a.Fail(tc.ctx(), tc.err)

			checkStreamInvariants(t, r.events)
			assert.Empty(t, r.errs, "a cancelled stream yields no error (000 §5.3)")
			end := r.events[len(r.events)-2]
			assert.Equal(t, canonical.EventToolUseEnd, end.Type)
			assert.Equal(t, `{}`, string(end.FinalInput), "partial JSON gives {}")
			resp := r.last().Response
			assert.Equal(t, canonical.StopCancelled, resp.StopReason)
			if diff := cmp.Diff(canonical.TextBlock{Text: "partial"}, resp.Content[0]); diff != "" {
				t.Errorf("first block (-want +got):\n%s", diff)
			}
			assert.Equal(t, `{}`, string(resp.Content[1].(canonical.ToolUseBlock).Input))
		})
	}
}

func TestAssemblerFailError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		class canonical.ErrorClass
		code  string
	}{
		{"provider error event", &canonical.AdapterError{Class: canonical.ErrServer, Code: canonical.CodeOverloaded, Message: "Overloaded"}, canonical.ErrServer, canonical.CodeOverloaded},
		{"truncated stream", nil, canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"read error", errors.New("connection reset by peer"), canonical.ErrNetwork, ""},
		{"unexpected EOF", io.ErrUnexpectedEOF, canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"malformed JSON", json.Unmarshal([]byte(`{"a":`), new(any)), canonical.ErrServer, canonical.CodeInvalidResponse},
		{"oversized event", fmt.Errorf("%w: more than 8 bytes", ErrSSEEventTooLarge), canonical.ErrServer, canonical.CodeInvalidResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			a, _ := newTestAssembler(r)
			a.TextDelta(0, "partial")
			a.Fail(context.Background(), tc.err)

			checkStreamInvariants(t, r.events)
			resp := r.last().Response
			assert.Equal(t, canonical.StopError, resp.StopReason)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "partial"}}, resp.Content); diff != "" {
				t.Errorf("partial content is kept (-want +got):\n%s", diff)
			}
			require.Len(t, r.errs, 1, "the error follows message.complete (000 §6.5)")
			var ae *canonical.AdapterError
			require.ErrorAs(t, r.errs[0], &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, "req_1", ae.RequestID)
			assert.Equal(t, "anthropic", ae.Provider)
			if tc.err != nil {
				assert.ErrorIs(t, r.errs[0], tc.err)
			}
		})
	}
}

func TestAssemblerFailBeforeAnything(t *testing.T) {
	r := &recorder{}
	a, _ := newTestAssembler(r)
	a.Fail(context.Background(), nil)
	checkStreamInvariants(t, r.events)
	if diff := cmp.Diff([]canonical.EventType{"message.start", "message.complete"}, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	assert.Len(t, r.errs, 1)
}

func TestAssemblerConsumerStopsEarly(t *testing.T) {
	r := &recorder{stopAfter: 2}
	a, _ := newTestAssembler(r)
	assert.False(t, a.TextDelta(0, "a"), "the consumer refuses the text.delta") // message.start, text.delta → stop
	assert.True(t, a.Stopped())
	assert.False(t, a.TextDelta(0, "b"))
	_, ok := a.ToolStart(1, "call_1", "f")
	assert.False(t, ok)
	assert.False(t, a.UsageUpdate(canonical.TokenUsage{}))
	a.Fail(context.Background(), errors.New("late"))
	a.Finish(canonical.StopEndTurn, "")
	assert.Equal(t, 2, r.yields, "nothing is yielded after the consumer returned false")
	assert.Empty(t, r.errs)
}

func TestAssemblerConsumerStopsOnTextDelta(t *testing.T) {
	r := &recorder{stopAfter: 2}
	a, _ := newTestAssembler(r)
	a.Start()
	assert.False(t, a.TextDelta(0, "a"), "the delta the consumer refused reports false")
	assert.True(t, a.Stopped())
}

func TestAssemblerWithoutYield(t *testing.T) {
	a, _ := newTestAssembler(nil)
	a.SetRawBody([]byte(`{"id":"msg_1"}`))
	a.SetProviderRaw(json.RawMessage(`{"k":1}`))
	a.ThinkingDelta(0, "t")
	a.TextDelta(1, "x")
	id, ok := a.ToolStart(2, "toolu_1", "f")
	require.True(t, ok)
	a.ToolInputFinal(2, json.RawMessage(`{}`))
	resp := a.Finish(canonical.StopToolUse, "tool_use")
	assert.False(t, a.Stopped())
	if diff := cmp.Diff(canonical.Blocks{
		canonical.ThinkingBlock{Text: "t"},
		canonical.TextBlock{Text: "x"},
		canonical.ToolUseBlock{ID: id, Name: "f", Input: json.RawMessage(`{}`)},
	}, resp.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	assert.Equal(t, `{"id":"msg_1"}`, string(resp.RawBody))
	assert.Equal(t, `{"k":1}`, string(resp.ProviderRaw))
}

func TestAssemblerResponseBeforeFinish(t *testing.T) {
	a, _ := newTestAssembler(nil)
	a.TextDelta(0, "so far")
	a.ToolStart(1, "call_1", "f")
	a.ToolInputDelta(1, `{"a":1}`)
	resp := a.Response()
	if diff := cmp.Diff(canonical.Blocks{
		canonical.TextBlock{Text: "so far"},
		canonical.ToolUseBlock{ID: resp.Content[1].(canonical.ToolUseBlock).ID, Name: "f", Input: json.RawMessage(`{"a":1}`)},
	}, resp.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

// TestAppendDoubling: the fragments of a 16 KiB argument cost a handful
// of allocations, and the bytes are append's.
func TestAppendDoubling(t *testing.T) {
	frag := `{"k":"0123456789abcdef0123456789"}`
	var want []byte
	for range 512 {
		want = append(want, frag...)
	}
	var got []byte
	allocs := testing.AllocsPerRun(10, func() {
		got = nil
		for range 512 {
			got = AppendDoubling(got, frag)
		}
	})
	if string(got) != string(want) {
		t.Fatal("AppendDoubling appends other bytes than append")
	}
	if allocs > 8 {
		t.Errorf("%v allocations for %d bytes, want at most 8 (doubling from 256)", allocs, len(got))
	}
	if AppendDoubling(nil, "") != nil {
		t.Error("appending nothing to nil gives a slice, append gives nil")
	}
}

// TestToolInputFinalRestated: a final input restated as it is copies
// nothing and changes nothing; ToolInputFromArgs sets what derive makes
// of the fragments, and nil leaves the input as it was.
func TestToolInputFinalRestated(t *testing.T) {
	a, _ := newTestAssembler(nil)
	a.ToolStart(0, "call_1", "f")
	if _, err := a.ToolInputDelta(0, `{"a": 1}`); err != nil {
		t.Fatal(err)
	}
	in := json.RawMessage(`{"a":1}`)
	a.ToolInputFinal(0, in)
	if n := testing.AllocsPerRun(10, func() { a.ToolInputFinal(0, in) }); n != 0 {
		t.Errorf("restating the final input allocates %v times", n)
	}
	a.ToolInputFromArgs(0, func([]byte) json.RawMessage { return nil })
	if got := string(a.blocks[0].final); got != `{"a":1}` {
		t.Errorf("final input %s after derive gave nil, want {\"a\":1}", got)
	}
	a.ToolInputFromArgs(0, func(args []byte) json.RawMessage { return args })
	if got := string(a.blocks[0].final); got != `{"a": 1}` {
		t.Errorf("final input %s, want the fragments {\"a\": 1}", got)
	}
}

// TestToolInputFinalChecked: a checked final input is kept as handed
// over, the same memory, with no second check as its block closes (an
// input no check would pass shows it); a later unchecked final input is
// checked again.
func TestToolInputFinalChecked(t *testing.T) {
	a, _ := newTestAssembler(nil)
	a.ToolStart(0, "call_1", "f")
	in := json.RawMessage(`{"a":1`) // what a decoder vouches for is not checked again
	a.ToolInputFinalChecked(0, in)
	a.EndBlock(0)
	if got := a.blocks[0].final; string(got) != `{"a":1` || &got[0] != &in[0] {
		t.Errorf("final input %s, want the checked one as handed over", got)
	}

	a.ToolStart(1, "call_2", "g")
	a.ToolInputFinalChecked(1, json.RawMessage(`{"b":2}`))
	a.ToolInputFinal(1, json.RawMessage(`{"b":`)) // unchecked: checked as the block closes
	a.EndBlock(1)
	if got := string(a.blocks[1].final); got != `{}` {
		t.Errorf("final input %s after an unchecked malformed one, want {}", got)
	}
}
