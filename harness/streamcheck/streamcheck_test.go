package streamcheck_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

const mid = "req_1"

func ev(t canonical.EventType, index int) canonical.StreamEvent {
	return canonical.StreamEvent{Type: t, MessageID: mid, Index: index}
}

func start() canonical.StreamEvent { return ev(canonical.EventMessageStart, 0) }

func text(i int, s string) canonical.StreamEvent {
	e := ev(canonical.EventTextDelta, i)
	e.Text = s
	return e
}

func thinking(i int, s, sig string) canonical.StreamEvent {
	e := ev(canonical.EventThinkingDelta, i)
	e.Text, e.Signature = s, sig
	return e
}

func toolStart(i int, id, name string) canonical.StreamEvent {
	e := ev(canonical.EventToolUseStart, i)
	e.ToolUseID, e.ToolName = id, name
	return e
}

func toolDelta(i int, id, frag string) canonical.StreamEvent {
	e := ev(canonical.EventToolUseInput, i)
	e.ToolUseID, e.PartialJSON = id, frag
	return e
}

func toolEnd(i int, id, input string) canonical.StreamEvent {
	e := ev(canonical.EventToolUseEnd, i)
	e.ToolUseID = id
	if input != "" {
		e.FinalInput = json.RawMessage(input)
	}
	return e
}

func complete(stop canonical.StopReason, content ...canonical.Block) canonical.StreamEvent {
	e := ev(canonical.EventMessageComplete, 0)
	e.Response = &canonical.Response{RequestID: mid, StopReason: stop, Content: content}
	return e
}

// good is a well-formed stream: thinking, text, then a tool call.
func good() []canonical.StreamEvent {
	return []canonical.StreamEvent{
		start(),
		thinking(0, "Let me ", ""),
		thinking(0, "look.", ""),
		thinking(0, "", "sig-1"),
		text(1, "Reading "),
		text(1, "it."),
		toolStart(2, "tu_1", "read_file"),
		toolDelta(2, "tu_1", `{"path":`),
		toolDelta(2, "tu_1", `"README.md"}`),
		toolEnd(2, "tu_1", `{"path":"README.md"}`),
		{Type: canonical.EventUsageUpdate, MessageID: mid, Usage: &canonical.TokenUsage{InputTokens: 3}},
		complete(canonical.StopToolUse,
			canonical.ThinkingBlock{Text: "Let me look.", Signature: "sig-1"},
			canonical.TextBlock{Text: "Reading it."},
			canonical.ToolUseBlock{ID: "tu_1", Name: "read_file", Input: json.RawMessage(`{"path": "README.md"}`)},
		),
	}
}

// rules lists, per rule, a stream breaking it and the findings expected
// (rule and event index), written by hand from 000 §5.2/§5.3.
var rules = []struct {
	name   string
	events []canonical.StreamEvent
	opts   []streamcheck.Option
	want   []string // "rule@index"
}{
	{
		name:   "start-first: delta before message.start",
		events: []canonical.StreamEvent{text(0, "hi"), start(), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "hi"})},
		want:   []string{"start-first@0", "start-first@1"},
	},
	{
		name:   "start-first: two starts",
		events: []canonical.StreamEvent{start(), start(), complete(canonical.StopEndTurn)},
		want:   []string{"start-first@1"},
	},
	{
		name: "tool-lifecycle: delta for a tool never started",
		events: []canonical.StreamEvent{start(), toolDelta(0, "tu_9", "{}"),
			complete(canonical.StopEndTurn)},
		want: []string{"tool-lifecycle@1"},
	},
	{
		name: "tool-lifecycle: two ends",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolEnd(0, "tu_1", "{}"), toolEnd(0, "tu_1", "{}"),
			complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})},
		want: []string{"tool-lifecycle@3"},
	},
	{
		name: "tool-lifecycle: no end before complete",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolDelta(0, "tu_1", "{"),
			complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})},
		want: []string{"tool-lifecycle@3"},
	},
	{
		name: "tool-lifecycle: delta at another index",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolDelta(1, "tu_1", "{}"), toolEnd(1, "tu_1", "{}"),
			complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})},
		want: []string{"tool-lifecycle@2", "tool-lifecycle@3"},
	},
	{
		name: "tool-final-input: an array",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolEnd(0, "tu_1", "[1]"),
			complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("[1]")})},
		want: []string{"tool-final-input@2"},
	},
	{
		name: "tool-final-input: missing",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolEnd(0, "tu_1", ""),
			complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})},
		want: []string{"tool-final-input@2"},
	},
	{
		name:   "complete-last: event after complete",
		events: []canonical.StreamEvent{start(), complete(canonical.StopEndTurn), text(0, "late")},
		want:   []string{"complete-last@2"},
	},
	{
		name:   "complete-last: no complete",
		events: []canonical.StreamEvent{start(), text(0, "hi")},
		want:   []string{"complete-last@2"},
	},
	{
		name:   "final-content: text differs from deltas",
		events: []canonical.StreamEvent{start(), text(0, "Hel"), text(0, "lo"), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "Help"})},
		want:   []string{"final-content@3"},
	},
	{
		name:   "final-content: streamed signature lost",
		events: []canonical.StreamEvent{start(), thinking(0, "hm", "s1"), complete(canonical.StopEndTurn, canonical.ThinkingBlock{Text: "hm"})},
		want:   []string{"final-content@2"},
	},
	{
		// OpenAI restates a reasoning item re-encrypted in
		// response.completed; the final, authoritative token may differ.
		name:   "final-content: signature restated at the end",
		events: []canonical.StreamEvent{start(), thinking(0, "hm", "s1"), complete(canonical.StopEndTurn, canonical.ThinkingBlock{Text: "hm", Signature: "s2"})},
	},
	{
		name: "final-content: tool input differs from tool.use_end",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolEnd(0, "tu_1", `{"a":1}`),
			complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage(`{"a":2}`)})},
		want: []string{"final-content@3"},
	},
	{
		name:   "final-content: streamed block missing",
		events: []canonical.StreamEvent{start(), text(0, "a"), text(1, "b"), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "a"})},
		want:   []string{"final-content@3"},
	},
	{
		name:   "final-content: block never streamed",
		events: []canonical.StreamEvent{start(), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "surprise"})},
		want:   []string{"final-content@1"},
	},
	{
		name:   "index-order: index goes back",
		events: []canonical.StreamEvent{start(), text(1, "a"), text(0, "b"), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "b"}, canonical.TextBlock{Text: "a"})},
		want:   []string{"index-order@2"},
	},
	{
		name:   "block-kind: text then thinking at one index",
		events: []canonical.StreamEvent{start(), text(0, "a"), thinking(0, "b", ""), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "a"})},
		want:   []string{"block-kind@2"},
	},
	{
		name: "message-id: event of another message",
		events: []canonical.StreamEvent{start(),
			{Type: canonical.EventTextDelta, MessageID: "req_2", Text: "a"},
			complete(canonical.StopEndTurn, canonical.TextBlock{Text: "a"})},
		want: []string{"message-id@1"},
	},
	{
		name: "cancelled: tool left open",
		events: []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolDelta(0, "tu_1", `{"pa`),
			complete(canonical.StopCancelled, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})},
		opts: []streamcheck.Option{streamcheck.Cancelled()},
		want: []string{"cancelled@3"},
	},
	{
		name:   "cancelled: event after cancelled complete",
		events: []canonical.StreamEvent{start(), complete(canonical.StopCancelled), text(0, "late")},
		want:   []string{"cancelled@2"},
	},
	{
		name:   "cancelled: consumer cancelled but stream ended normally",
		events: []canonical.StreamEvent{start(), text(0, "a"), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "a"})},
		opts:   []streamcheck.Option{streamcheck.Cancelled()},
		want:   []string{"cancelled@3"},
	},
}

func summarize(fs []streamcheck.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.Rule, f.Index))
	}
	return out
}

func TestCheckViolations(t *testing.T) {
	for _, tt := range rules {
		t.Run(tt.name, func(t *testing.T) {
			got := streamcheck.Check(tt.events, tt.opts...)
			if diff := cmp.Diff(tt.want, summarize(got)); diff != "" {
				t.Errorf("%v (-want +got):\n%s", got, diff)
			}
		})
	}
}

// passing lists, per rule, a stream that keeps it in a way a careless
// checker might flag.
var passing = []struct {
	name   string
	events []canonical.StreamEvent
	opts   []streamcheck.Option
}{
	{"well-formed stream", good(), nil},
	{"empty stream (failed before the first event)", nil, nil},
	{"error alone", []canonical.StreamEvent{{Type: canonical.EventError}}, nil},
	{"tool with no deltas", []canonical.StreamEvent{start(), toolStart(0, "tu_1", "f"), toolEnd(0, "tu_1", "{}"),
		complete(canonical.StopToolUse, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})}, nil},
	{"many deltas at one index", []canonical.StreamEvent{start(), text(0, "a"), text(0, "b"), text(0, "c"),
		complete(canonical.StopEndTurn, canonical.TextBlock{Text: "abc"})}, nil},
	{"index may skip", []canonical.StreamEvent{start(), text(0, "a"), text(3, "b"),
		complete(canonical.StopEndTurn, canonical.TextBlock{Text: "a"}, canonical.RedactedThinkingBlock{Data: "x"}, canonical.TextBlock{}, canonical.TextBlock{Text: "b"})}, nil},
	{"indexes that are not content positions", []canonical.StreamEvent{start(), text(5, "a"), toolStart(7, "tu_1", "f"), toolEnd(7, "tu_1", "{}"),
		complete(canonical.StopToolUse, canonical.TextBlock{Text: "a"}, canonical.TextBlock{}, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})}, nil},
	{"error after an error-stopped complete", []canonical.StreamEvent{start(), text(0, "a"),
		complete(canonical.StopError, canonical.TextBlock{Text: "a"}), {Type: canonical.EventError, MessageID: mid}}, nil},
	{"partial stream", []canonical.StreamEvent{start(), text(0, "a")}, []streamcheck.Option{streamcheck.Partial()}},
	{"cancelled with every tool ended", []canonical.StreamEvent{start(), text(0, "a"), toolStart(1, "tu_1", "f"), toolDelta(1, "tu_1", `{"pa`), toolEnd(1, "tu_1", "{}"),
		complete(canonical.StopCancelled, canonical.TextBlock{Text: "a"}, canonical.ToolUseBlock{ID: "tu_1", Name: "f", Input: json.RawMessage("{}")})},
		[]streamcheck.Option{streamcheck.Cancelled()}},
	{"cancelled before the first event", nil, []streamcheck.Option{streamcheck.Cancelled()}},
	{"ignored rule", []canonical.StreamEvent{start(), text(1, "a"), text(0, "b"), complete(canonical.StopEndTurn, canonical.TextBlock{Text: "b"}, canonical.TextBlock{Text: "a"})},
		[]streamcheck.Option{streamcheck.Ignore(streamcheck.RuleIndexOrder)}},
}

func TestCheckPasses(t *testing.T) {
	for _, tt := range passing {
		t.Run(tt.name, func(t *testing.T) {
			got := streamcheck.Check(tt.events, tt.opts...)
			assert.Empty(t, got)
		})
	}
}

func TestFindingString(t *testing.T) {
	f := streamcheck.Finding{Rule: streamcheck.RuleCompleteLast, Index: 4, Message: "text.delta after message.complete"}
	assert.Equal(t, "event 4: complete-last: text.delta after message.complete", f.String())
}

func TestRulesCoveredByTests(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range rules {
		for _, w := range tt.want {
			for _, r := range streamcheck.Rules() {
				if len(w) > len(r) && w[:len(r)+1] == r+"@" {
					seen[r] = true
				}
			}
		}
	}
	for _, r := range streamcheck.Rules() {
		assert.True(t, seen[r], "rule %s has no violating test", r)
	}
}

func ExampleCheck() {
	events := []canonical.StreamEvent{
		{Type: canonical.EventMessageStart, MessageID: "req_1"},
		{Type: canonical.EventToolUseStart, MessageID: "req_1", ToolUseID: "tu_1", ToolName: "read_file"},
		{Type: canonical.EventMessageComplete, MessageID: "req_1", Response: &canonical.Response{
			StopReason: canonical.StopToolUse,
			Content:    canonical.Blocks{canonical.ToolUseBlock{ID: "tu_1", Name: "read_file", Input: json.RawMessage("{}")}},
		}},
	}
	for _, f := range streamcheck.Check(events) {
		fmt.Println(f)
	}
	// Output:
	// event 2: tool-lifecycle: message.complete while tool "tu_1" (started at event 1) has no tool.use_end
}
