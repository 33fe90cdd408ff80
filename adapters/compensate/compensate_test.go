package compensate

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// registry is the models.yaml of these tests: gpt-5 with every
// compensation, gpt-5-mini with none, and an Anthropic model of each tier.
const registry = `adapters:
  openai: {type: openai}
  anthropic: {type: anthropic}
models:
  openai:gpt-5:
    tier: balanced
    compensations:
      prompt_addendum: "Call tools; do not describe them."
      max_tools: 4
      core_tools: [read_file]
      force_tool_first_turn: true
      tier_stand_in: true
      retry: {max_retries: 2, base_delay: 2s, max_delay: 3s, on: [tool_call_state, server_error]}
  openai:gpt-5-mini: {tier: fast}
  anthropic:claude-sonnet-4-6: {tier: balanced, aliases: [sonnet]}
  anthropic:claude-haiku-4-5: {tier: fast, aliases: [haiku]}
`

func testRegistry(t *testing.T) *adapters.Registry {
	t.Helper()
	reg, err := adapters.LoadRegistry(strings.NewReader(registry), "models.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// fakeAdapter records requests and answers from fail (an error per call,
// nil for success).
type fakeAdapter struct {
	mu       sync.Mutex
	requests []*canonical.Request
	fail     []error
	// events is what a successful Stream yields; midErr, when set, is
	// yielded after the first event.
	midErr error
}

func (f *fakeAdapter) Name() string { return "openai" }
func (f *fakeAdapter) Capabilities(string) canonical.Capabilities {
	return canonical.Capabilities{SupportsTools: true}
}
func (f *fakeAdapter) EstimateInputTokens(req *canonical.Request) int { return len(req.Tools) }
func (f *fakeAdapter) Cancel(string) bool                             { return false }
func (f *fakeAdapter) Close() error                                   { return nil }

func (f *fakeAdapter) next(req *canonical.Request) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if len(f.fail) == 0 {
		return nil
	}
	err := f.fail[0]
	f.fail = f.fail[1:]
	return err
}

func (f *fakeAdapter) Complete(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
	if err := f.next(req); err != nil {
		return nil, err
	}
	return &canonical.Response{Model: req.Model, StopReason: canonical.StopEndTurn, Content: canonical.Blocks{canonical.TextBlock{Text: "ok"}}}, nil
}

func (f *fakeAdapter) Stream(_ context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	err := f.next(req)
	return func(yield func(canonical.StreamEvent, error) bool) {
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		if !yield(canonical.StreamEvent{Type: canonical.EventMessageStart}, nil) {
			return
		}
		if f.midErr != nil {
			yield(canonical.StreamEvent{}, f.midErr)
			return
		}
		yield(canonical.StreamEvent{Type: canonical.EventMessageComplete, Response: &canonical.Response{StopReason: canonical.StopEndTurn}}, nil)
	}
}

var quiet = slog.New(slog.DiscardHandler)

func tool(name, desc string) canonical.ToolDefinition {
	return canonical.ToolDefinition{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func userMsg(text string) canonical.Message {
	return canonical.Message{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func names(ts []canonical.ToolDefinition) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func wrapFake(t *testing.T, f *fakeAdapter) (*Adapter, *adaptertest.Clock) {
	clock := adaptertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return Wrap(f, testRegistry(t), Options{Clock: clock, Logger: quiet}), clock
}

// TestPromptAddendum: the addendum follows the caller's system prompt, or
// is the whole prompt; the caller's request is not changed; a model
// without compensations gets the request as it is.
func TestPromptAddendum(t *testing.T) {
	f := &fakeAdapter{}
	w, _ := wrapFake(t, f)
	req := &canonical.Request{Model: "openai:gpt-5", SystemPrompt: "Be terse.", Messages: []canonical.Message{userMsg("hi")}}
	w.Complete(context.Background(), req)                                                                       //nolint:errcheck // the request is checked
	w.Complete(context.Background(), &canonical.Request{Model: "openai:gpt-5", Messages: req.Messages})         //nolint:errcheck
	w.Complete(context.Background(), &canonical.Request{Model: "openai:gpt-5-mini", SystemPrompt: "Be terse."}) //nolint:errcheck
	got := []string{f.requests[0].SystemPrompt, f.requests[1].SystemPrompt, f.requests[2].SystemPrompt}
	want := []string{"Be terse.\n\nCall tools; do not describe them.", "Call tools; do not describe them.", "Be terse."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("system prompts (-want +got)\n%s", diff)
	}
	if req.SystemPrompt != "Be terse." {
		t.Errorf("the caller's request changed: %q", req.SystemPrompt)
	}
}

// TestToolCap: with more tools than the cap, the kept tools are the core
// tools, the tools the history called, the one tool_choice names, then
// the most relevant to the last user message, in the request's order.
func TestToolCap(t *testing.T) {
	tools := []canonical.ToolDefinition{
		tool("send_email", "Send an email message."),
		tool("read_file", "Read a UTF-8 text file."),
		tool("get_weather", "Current weather for a city."),
		tool("list_calendar", "List calendar events."),
		tool("grep", "Search file contents with a regular expression."),
		tool("web_search", "Search the web and return result snippets."),
		tool("translate", "Translate text between languages."),
		tool("create_ticket", "Open an issue ticket."),
	}
	history := []canonical.Message{
		userMsg("find TODOs"),
		{Role: canonical.RoleAssistant, Content: canonical.Blocks{canonical.ToolUseBlock{ID: "tu_1", Name: "grep", Input: json.RawMessage(`{}`)}}},
		{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_1"}}},
		userMsg("Now search the web for the weather forecast in Paris."),
	}
	for _, tc := range []struct {
		name   string
		msgs   []canonical.Message
		choice *canonical.ToolChoice
		tools  []canonical.ToolDefinition
		want   []string
	}{
		{"core, called, relevant", history, nil, tools, []string{"read_file", "get_weather", "grep", "web_search"}},
		{"the named tool is kept", history, &canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "create_ticket"}, tools,
			[]string{"read_file", "grep", "web_search", "create_ticket"}},
		{"nothing relevant: in order", []canonical.Message{userMsg("hello")}, nil, tools, []string{"send_email", "read_file", "get_weather", "list_calendar"}},
		{"under the cap: all", []canonical.Message{userMsg("hello")}, nil, tools[:3], []string{"send_email", "read_file", "get_weather"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAdapter{}
			w, _ := wrapFake(t, f)
			w.Complete(context.Background(), &canonical.Request{Model: "openai:gpt-5", Messages: tc.msgs, Tools: tc.tools, ToolChoice: tc.choice}) //nolint:errcheck
			if diff := cmp.Diff(tc.want, names(f.requests[0].Tools)); diff != "" {
				t.Errorf("tools sent (-want +got)\n%s", diff)
			}
			if got := w.EstimateInputTokens(&canonical.Request{Model: "openai:gpt-5", Messages: tc.msgs, Tools: tc.tools}); got != min(len(tc.tools), 4) {
				t.Errorf("the estimate saw %d tools, want the capped request's", got)
			}
		})
	}
}

func TestWords(t *testing.T) {
	got := words("TodoWrite read_file: the FILES, a weather-forecast 42")
	want := map[string]bool{"todo": true, "write": true, "read": true, "file": true, "weather": true, "forecast": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestForceToolFirstTurn: tool_choice any on the first turn of a request
// with tools whose caller chose none; never later, without tools, or
// over the caller's choice.
func TestForceToolFirstTurn(t *testing.T) {
	later := []canonical.Message{userMsg("a"), {Role: canonical.RoleAssistant, Content: canonical.Blocks{canonical.TextBlock{Text: "b"}}}, userMsg("c")}
	none := &canonical.ToolChoice{Mode: canonical.ToolChoiceNone}
	for _, tc := range []struct {
		name   string
		model  string
		msgs   []canonical.Message
		tools  []canonical.ToolDefinition
		choice *canonical.ToolChoice
		want   *canonical.ToolChoice
	}{
		{"first turn", "openai:gpt-5", []canonical.Message{userMsg("a")}, []canonical.ToolDefinition{tool("t", "")}, nil, &canonical.ToolChoice{Mode: canonical.ToolChoiceAny}},
		{"later turn", "openai:gpt-5", later, []canonical.ToolDefinition{tool("t", "")}, nil, nil},
		{"no tools", "openai:gpt-5", []canonical.Message{userMsg("a")}, nil, nil, nil},
		{"caller's choice", "openai:gpt-5", []canonical.Message{userMsg("a")}, []canonical.ToolDefinition{tool("t", "")}, none, none},
		{"model without it", "openai:gpt-5-mini", []canonical.Message{userMsg("a")}, []canonical.ToolDefinition{tool("t", "")}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAdapter{}
			w, _ := wrapFake(t, f)
			w.Complete(context.Background(), &canonical.Request{Model: tc.model, Messages: tc.msgs, Tools: tc.tools, ToolChoice: tc.choice}) //nolint:errcheck
			if diff := cmp.Diff(tc.want, f.requests[0].ToolChoice); diff != "" {
				t.Errorf("tool_choice (-want +got)\n%s", diff)
			}
		})
	}
}

func adapterErr(class canonical.ErrorClass, code string) error {
	ae := canonical.NewError(class, code, "%s", code)
	ae.Provider = "openai"
	return ae
}

// TestRetryProfile: a whole call failing with a class or code of the
// profile is made again after 2 s, then 4 s capped at 3 s; other
// failures and the last are returned; a stream is retried only before its
// first event; a cancellation stops the wait.
func TestRetryProfile(t *testing.T) {
	state := adapterErr(canonical.ErrInvalidRequest, canonical.CodeToolCallState)
	server := adapterErr(canonical.ErrServer, "")
	auth := adapterErr(canonical.ErrAuth, "")
	req := &canonical.Request{Model: "openai:gpt-5", Messages: []canonical.Message{userMsg("a")}}
	for _, tc := range []struct {
		name   string
		fail   []error
		calls  int
		sleeps []time.Duration
		err    error
	}{
		{"cured by a retry", []error{state, server}, 3, []time.Duration{2 * time.Second, 3 * time.Second}, nil},
		{"exhausted", []error{state, state, state, state}, 3, []time.Duration{2 * time.Second, 3 * time.Second}, state},
		{"not in the profile", []error{auth}, 1, nil, auth},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				f := &fakeAdapter{fail: append([]error(nil), tc.fail...)}
				w, clock := wrapFake(t, f)
				var err error
				if stream {
					_, err = adaptertest.Collect(w.Stream(context.Background(), req))
				} else {
					_, err = w.Complete(context.Background(), req)
				}
				if !errors.Is(err, tc.err) && err != tc.err {
					t.Errorf("stream=%v: error %v, want %v", stream, err, tc.err)
				}
				if len(f.requests) != tc.calls {
					t.Errorf("stream=%v: %d calls, want %d", stream, len(f.requests), tc.calls)
				}
				if diff := cmp.Diff(tc.sleeps, clock.Sleeps()); diff != "" {
					t.Errorf("stream=%v: sleeps (-want +got)\n%s", stream, diff)
				}
			})
		}
	}
	t.Run("not after the first event", func(t *testing.T) {
		f := &fakeAdapter{midErr: server}
		w, _ := wrapFake(t, f)
		evs, err := adaptertest.Collect(w.Stream(context.Background(), req))
		if err != server || len(evs) != 1 || len(f.requests) != 1 {
			t.Errorf("got %d events, %d calls, error %v; want the stream as it failed, once", len(evs), len(f.requests), err)
		}
	})
	t.Run("model without a profile", func(t *testing.T) {
		f := &fakeAdapter{fail: []error{server}}
		w, _ := wrapFake(t, f)
		_, err := w.Complete(context.Background(), &canonical.Request{Model: "openai:gpt-5-mini"})
		if err != server || len(f.requests) != 1 {
			t.Errorf("%d calls, error %v", len(f.requests), err)
		}
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		f := &fakeAdapter{fail: []error{server, server}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w, _ := wrapFake(t, f)
		_, err := w.Complete(ctx, req)
		if err != server || len(f.requests) != 1 {
			t.Errorf("%d calls, error %v; want no retry once the context is done", len(f.requests), err)
		}
	})
}

// TestTierStandIn is 003 §8.2: sent to the OpenAI adapter, a request for
// Sonnet — by id, alias or tier — goes to gpt-5, OpenAI's balanced stand
// in, with gpt-5's compensations; a tier without a stand-in, and the
// adapter's own models, are left alone.
func TestTierStandIn(t *testing.T) {
	for _, tc := range []struct{ asked, sent string }{
		{"anthropic:claude-sonnet-4-6", "openai:gpt-5"},
		{"sonnet", "openai:gpt-5"},
		{"balanced", "openai:gpt-5"},
		{"anthropic:claude-haiku-4-5", "anthropic:claude-haiku-4-5"},
		{"openai:gpt-5-mini", "openai:gpt-5-mini"},
		{"openai:o9-unlisted", "openai:o9-unlisted"},
	} {
		t.Run(tc.asked, func(t *testing.T) {
			f := &fakeAdapter{}
			w, _ := wrapFake(t, f)
			w.Complete(context.Background(), &canonical.Request{Model: tc.asked, Messages: []canonical.Message{userMsg("a")}}) //nolint:errcheck
			if got := f.requests[0].Model; got != tc.sent {
				t.Errorf("sent %s, want %s", got, tc.sent)
			}
			if (tc.sent == "openai:gpt-5") != (f.requests[0].SystemPrompt != "") {
				t.Errorf("compensations of %s not applied as they should be: %q", tc.sent, f.requests[0].SystemPrompt)
			}
		})
	}
}

// TestOffByDefault: under the default registry nothing changes: the
// wrapped adapter gets the caller's own request.
func TestOffByDefault(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAdapter{}
	w := Wrap(f, reg, Options{Logger: quiet})
	req := &canonical.Request{Model: "openai:gpt-5", Messages: []canonical.Message{userMsg("a")}, Tools: []canonical.ToolDefinition{tool("t", "")}}
	w.Complete(context.Background(), req) //nolint:errcheck
	if f.requests[0] != req {
		t.Errorf("the request was rewritten: %+v", f.requests[0])
	}
}
