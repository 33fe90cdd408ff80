package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/session"
)

// readFile's path must be a string; the model below sends a number.
var readFile = canonical.ToolDefinition{
	Name:        "read_file",
	Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
}

// sessionProviders are the built-in adapters, opened against the
// emulator at url.
var sessionProviders = []struct{ name, model string }{
	{"anthropic", "anthropic:claude-sonnet-4-6"},
	{"openai", "openai:gpt-5"},
	{"openai-chat", "openai:gpt-4.1"},
	{"gemini", "gemini:gemini-2.5-flash"},
	{"vllm", "vllm:qwen"},
}

func openProvider(t *testing.T, name, url string, obs adapters.Observer) adapters.Adapter {
	t.Helper()
	cfg := adapters.Config{Name: name, Type: name, APIKey: "sk-test-FAKE", BaseURL: url, Observer: obs, Logger: quiet}
	switch name {
	case "openai-chat":
		cfg.Name, cfg.Type = "openai", "openai"
		cfg.Models = map[string]adapters.ModelConfig{"openai:gpt-4.1": {WireName: "gpt-4.1", Options: map[string]any{"dialect": "chat"}}}
	case "vllm":
		cfg.Type = "openaicompat"
		cfg.Models = map[string]adapters.ModelConfig{"vllm:qwen": {WireName: "qwen", Capabilities: json.RawMessage(`{"supports_tools":true,"supports_streaming":true}`)}}
	}
	if cfg.Type == "openai" || cfg.Type == "openaicompat" {
		cfg.BaseURL += "/v1"
	}
	a, err := providers.Factories()[cfg.Type](cfg)
	if err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// events keeps the lifecycle events an Observer saw.
type events struct {
	mu  sync.Mutex
	all []adapters.Event
}

func (e *events) Observe(_ context.Context, ev adapters.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(t adapters.EventType) []adapters.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []adapters.Event
	for _, ev := range e.all {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

// TestInvalidToolInputDoesNotStickTheSession is the stuck session of
// issue 22: a provider returns {"path": 42} for a string field. Before
// the arrival check the turn was accepted as complete, and every later
// turn failed before the wire with tool_input_invalid, for good. Now the
// block arrives marked, a tool_input_invalid event is emitted, and the
// session goes on: the next call carries an is_error result telling the
// model what was wrong (004 §3), streamed or not, on every provider.
func TestInvalidToolInputDoesNotStickTheSession(t *testing.T) {
	for _, p := range sessionProviders {
		for _, tc := range []struct {
			stream, callerAnswers bool
		}{{false, false}, {true, false}, {false, true}, {true, true}} {
			stream := tc.stream
			name := p.name
			if stream {
				name += "/stream"
			}
			if tc.callerAnswers {
				name += "/caller-answers"
			}
			t.Run(name, func(t *testing.T) {
				srv := emulator.NewServer()
				defer srv.Close()
				srv.Enqueue(emulator.Reply{ToolCalls: []emulator.ToolCall{{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":42}`)}}})
				srv.Enqueue(emulator.Reply{ToolCalls: []emulator.ToolCall{{ID: "call_2", Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)}}})
				srv.Enqueue(emulator.Reply{Text: "Done."})

				obs := &events{}
				a := openProvider(t, p.name, srv.URL, obs)
				s := session.New(session.Options{Model: p.model, Tools: []canonical.ToolDefinition{readFile}, Logger: quiet,
					Adapters: func(string) (adapters.Adapter, error) { return a, nil }})
				call := func() *canonical.Message {
					t.Helper()
					if !stream {
						m, err := s.Call(context.Background(), session.CallOptions{})
						if err != nil {
							t.Fatalf("call: %v", err)
						}
						return m
					}
					var sawMark string
					for ev, err := range s.Stream(context.Background(), session.CallOptions{}) {
						if err != nil {
							t.Fatalf("stream: %v", err)
						}
						if ev.Type == canonical.EventToolUseEnd {
							sawMark = ev.InputError
						}
					}
					m := s.Messages()[len(s.Messages())-1]
					if tus := m.Content.ToolUses(); len(tus) == 1 && tus[0].InputError != sawMark {
						t.Errorf("tool.use_end input_error %q, block's %q", sawMark, tus[0].InputError)
					}
					return &m
				}

				if _, err := s.AddUser(canonical.TextBlock{Text: "Read README.md"}); err != nil {
					t.Fatal(err)
				}
				first := call()
				tus := first.Content.ToolUses()
				if len(tus) != 1 {
					t.Fatalf("first turn: want one tool call, got %s", jsonString(t, first.Content))
				}
				bad := tus[0]
				// Nothing lost: the input is kept as the model sent it.
				if !jsonEqual(bad.Input, `{"path":42}`) {
					t.Errorf("input = %s, want the provider's {\"path\":42}", bad.Input)
				}
				if !strings.Contains(bad.InputError, "input#/path") || !strings.Contains(bad.InputError, "want string") {
					t.Errorf("InputError = %q, want it to name input#/path and the expected type", bad.InputError)
				}
				if first.Metadata.EffectiveStatus() != canonical.StatusComplete {
					t.Errorf("status %s, want complete", first.Metadata.EffectiveStatus())
				}
				inv := obs.of(adapters.EventToolInputInvalid)
				if len(inv) != 1 || inv[0].ToolUseID != bad.ID || inv[0].ToolName != "read_file" || inv[0].Reason != bad.InputError {
					t.Errorf("tool_input_invalid events = %+v, want one for %s with the block's reason", inv, bad.ID)
				}

				// The documented way forward: the caller answers the call
				// with InvalidToolInputText as an is_error result, or just
				// calls again and the session's policy does it. Before the
				// arrival check, this call failed with tool_input_invalid
				// before the wire, and so did every later one.
				if tc.callerAnswers {
					if _, err := s.AddToolResultText(bad.ID, session.InvalidToolInputText(bad), true); err != nil {
						t.Fatal(err)
					}
				}
				second := call()
				if tus := second.Content.ToolUses(); len(tus) != 1 || tus[0].InputError != "" {
					t.Fatalf("second turn: want one valid tool call, got %s", jsonString(t, second.Content))
				}
				body := string(srv.Requests()[1].Body)
				want := session.InvalidToolInputText(bad)
				if !strings.Contains(body, jsonEscaped(want)) {
					t.Errorf("second request does not carry the is_error result %q:\n%s", want, body)
				}

				// The caller's own answer works too, and the session goes on.
				if _, err := s.AddToolResultText(second.Content.ToolUses()[0].ID, "# README", false); err != nil {
					t.Fatal(err)
				}
				if third := call(); third.Content.Text() != "Done." {
					t.Errorf("third turn text %q", third.Content.Text())
				}
			})
		}
	}
}

// TestMarkedHistoryGoesToTheWire: a history holding a marked call and the
// is_error answer passes history validation on every adapter called
// directly, while the same input unmarked is still refused before the
// wire (the check the mark replaces).
func TestMarkedHistoryGoesToTheWire(t *testing.T) {
	for _, p := range sessionProviders {
		t.Run(p.name, func(t *testing.T) {
			srv := emulator.NewServer()
			defer srv.Close()
			srv.Enqueue(emulator.Reply{Text: "ok"})
			a := openProvider(t, p.name, srv.URL, nil)
			tu := canonical.ToolUseBlock{ID: "tu_01", Name: "read_file", Input: json.RawMessage(`{"path":42}`)}
			history := func(tu canonical.ToolUseBlock) *canonical.Request {
				return &canonical.Request{Model: p.model, Tools: []canonical.ToolDefinition{readFile}, Messages: []canonical.Message{
					{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "read"}}},
					{ID: "m2", Role: canonical.RoleAssistant, Content: canonical.Blocks{tu}},
					{ID: "m3", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: tu.ID, IsError: true,
						Content: canonical.Blocks{canonical.TextBlock{Text: "bad input"}}}}},
				}}
			}
			_, err := a.Complete(context.Background(), history(tu))
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) || ae.Code != canonical.CodeToolInputInvalid {
				t.Fatalf("unmarked invalid input: got %v, want tool_input_invalid before the wire", err)
			}
			tu.InputError = "input#/path: got number, want string"
			resp, err := a.Complete(context.Background(), history(tu))
			if err != nil {
				t.Fatalf("marked history refused: %v", err)
			}
			if diff := cmp.Diff("ok", resp.Content.Text()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

var quiet = slog.New(slog.DiscardHandler)

func jsonEqual(got json.RawMessage, want string) bool {
	var g, w any
	return json.Unmarshal(got, &g) == nil && json.Unmarshal([]byte(want), &w) == nil && cmp.Equal(g, w)
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonEscaped is s as it appears inside a JSON string.
func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
