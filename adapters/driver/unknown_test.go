package driver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

func audio() canonical.UnknownBlock {
	raw := `{"type":"audio","format":"wav","data":"UklGRg=="}`
	return canonical.UnknownBlock{BlockType: "audio", Raw: json.RawMessage(raw)}
}

// unknownHistory is a history with an audio block in the user message,
// one inside a tool result, and a video block in a later user message.
func unknownHistory() []canonical.Message {
	return []canonical.Message{
		{ID: "m1", SessionID: "s1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "listen"}, audio()}},
		{ID: "m2", SessionID: "s1", Role: canonical.RoleAssistant, Content: canonical.Blocks{canonical.ToolUseBlock{ID: "tu_1", Name: "play", Input: json.RawMessage(`{}`)}}},
		{ID: "m3", SessionID: "s1", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_1", Content: canonical.Blocks{canonical.TextBlock{Text: "played"}, audio()}}}},
		{ID: "m4", SessionID: "s1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.UnknownBlock{BlockType: "video", Raw: json.RawMessage(`{"type":"video"}`)}, canonical.TextBlock{Text: "and this?"}}},
	}
}

// TestUnknownBlocksSkipped is 001 §10.3: a block of a type this version
// does not know is skipped on the way to the wire, with one WARN and one
// lossy_projection event per block, instead of refusing the history; the
// caller's messages are not changed.
func TestUnknownBlocksSkipped(t *testing.T) {
	logs := &captureHandler{}
	obs := &recordedEvents{}
	c := &Call{Adapter: "fake", Log: slog.New(logs), Request: &canonical.Request{RequestID: "req_1", Model: "fake:m"}, observer: obs}
	in := unknownHistory()
	before, _ := json.Marshal(in)
	out, err := skipUnknown(c, in)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(in)
	if string(before) != string(after) {
		t.Error("skipUnknown changed the caller's messages")
	}
	got, _ := json.Marshal(out)
	want := `[{"id":"m1","session_id":"s1","role":"user","content":[{"type":"text","text":"listen"}],"metadata":{},"created_at":"0001-01-01T00:00:00Z","schema_version":0},` +
		`{"id":"m2","session_id":"s1","role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"play","input":{}}],"metadata":{},"created_at":"0001-01-01T00:00:00Z","schema_version":0},` +
		`{"id":"m3","session_id":"s1","role":"tool","content":[{"type":"tool_result","tool_use_id":"tu_1","content":[{"type":"text","text":"played"}]}],"metadata":{},"created_at":"0001-01-01T00:00:00Z","schema_version":0},` +
		`{"id":"m4","session_id":"s1","role":"user","content":[{"type":"text","text":"and this?"}],"metadata":{},"created_at":"0001-01-01T00:00:00Z","schema_version":0}]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("projected history (-want +got)\n%s", diff)
	}
	var warned []string
	for _, r := range logs.all() {
		if r.Level == slog.LevelWarn && r.Message == LossyProjectionMsg {
			a := attrs(r)
			warned = append(warned, a["message_id"]+":"+a["block_type"])
			if !strings.Contains(a["reason"], "unknown to this version") || a["session_id"] != "s1" || a["adapter"] != "fake" {
				t.Errorf("WARN attributes %v", a)
			}
		}
	}
	if diff := cmp.Diff([]string{"m1:audio", "m3:audio", "m4:video"}, warned); diff != "" {
		t.Errorf("one WARN per block (-want +got)\n%s", diff)
	}
	var dropped []string
	for _, e := range obs.all {
		if e.Type == adapters.EventLossyDrop {
			dropped = append(dropped, e.MessageID+":"+string(e.BlockType))
		}
	}
	if diff := cmp.Diff([]string{"m1:audio", "m3:audio", "m4:video"}, dropped); diff != "" {
		t.Errorf("one lossy_projection event per block (-want +got)\n%s", diff)
	}
}

// TestUnknownBlocksNoneToSkip: a history without unknown blocks is
// returned as it is, without a copy.
func TestUnknownBlocksNoneToSkip(t *testing.T) {
	in := []canonical.Message{{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}}}
	out, err := skipUnknown(&Call{}, in)
	if err != nil || &out[0] != &in[0] {
		t.Errorf("got a copy (%v) or an error %v", &out[0] != &in[0], err)
	}
	if n := testing.AllocsPerRun(100, func() { skipUnknown(&Call{}, in) }); n != 0 { //nolint:errcheck // allocation count only
		t.Errorf("%v allocations, want 0", n)
	}
}

// TestCriticalBlocks: a block marked critical (001 §4.2.2) is never
// dropped: an unknown one, or one inside a tool result, or a known one a
// provider drops (Call.Drop), fails the call with invalid_request naming
// the message, index and type, with no WARN for it. Critical marks on the
// blocks that stay are renumbered past the skipped ones.
func TestCriticalBlocks(t *testing.T) {
	t.Run("unknown block", func(t *testing.T) {
		msgs := unknownHistory()
		msgs[3].Metadata.CriticalBlocks = []int{0}
		_, err := skipUnknown(&Call{Adapter: "fake", Request: &canonical.Request{}}, msgs)
		wantCritical(t, err, "message m4: content[0] (video) is marked critical")
	})
	t.Run("unknown block inside a tool result", func(t *testing.T) {
		msgs := unknownHistory()
		msgs[2].Metadata.CriticalBlocks = []int{0}
		_, err := skipUnknown(&Call{Adapter: "fake", Request: &canonical.Request{}}, msgs)
		wantCritical(t, err, "message m3: content[0] (tool_result) is marked critical")
	})
	t.Run("marks renumbered", func(t *testing.T) {
		msgs := unknownHistory()
		msgs[3].Metadata.CriticalBlocks = []int{1}
		out, err := skipUnknown(&Call{Adapter: "fake", Request: &canonical.Request{}, Log: slog.New(slog.DiscardHandler)}, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int{0}, out[3].Metadata.CriticalBlocks); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		if diff := cmp.Diff([]int{1}, msgs[3].Metadata.CriticalBlocks); diff != "" {
			t.Errorf("the caller's marks changed (-want +got)\n%s", diff)
		}
	})
	t.Run("known block a provider drops", func(t *testing.T) {
		logs := &captureHandler{}
		c := &Call{Adapter: "openai", Log: slog.New(logs), Request: &canonical.Request{}}
		m := &canonical.Message{ID: "m2", Role: canonical.RoleAssistant, Content: canonical.Blocks{
			canonical.ThinkingBlock{Text: "a"}, canonical.TextBlock{Text: "b"}, canonical.ThinkingBlock{Text: "c"}},
			Metadata: canonical.MessageMetadata{CriticalBlocks: []int{2}}}
		c.Drop(m, canonical.BlockText, "not this one")
		if c.critical != nil {
			t.Fatalf("a text drop failed the call: %v", c.critical)
		}
		c.Drop(m, canonical.BlockThinking, "Chat Completions cannot carry reasoning")
		wantCritical(t, c.critical, "message m2: content[2] (thinking) is marked critical")
		if n := len(logs.all()); n != 1 {
			t.Errorf("%d WARN entries, want 1 (the text block's)", n)
		}
	})
	t.Run("end to end", func(t *testing.T) {
		s := newStreamServer(reply{body: `[{"t":"stop","s":"end_turn"}]`})
		defer s.Close()
		a := s.runtime(newFakeClock(), nil)
		req := testRequest()
		req.Messages = unknownHistory()
		req.Messages[0].Metadata.CriticalBlocks = []int{1}
		_, err := a.Complete(context.Background(), req)
		ae := wantCritical(t, err, "message m1: content[1] (audio) is marked critical")
		if ae != nil && (ae.Provider != "fake" || ae.RequestID != "req_01TEST") {
			t.Errorf("error provider %q request %q", ae.Provider, ae.RequestID)
		}
		if n := s.n.Load(); n != 0 {
			t.Errorf("%d requests reached the server, want none", n)
		}
	})
}

func wantCritical(t *testing.T, err error, msg string) *canonical.AdapterError {
	t.Helper()
	var ae *canonical.AdapterError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want an AdapterError", err)
	}
	if ae.Class != canonical.ErrInvalidRequest || ae.Code != canonical.CodeUnsupportedContent || !strings.Contains(ae.Message, msg) {
		t.Errorf("got %s/%s %q, want invalid_request/unsupported_content containing %q", ae.Class, ae.Code, ae.Message, msg)
	}
	return ae
}
