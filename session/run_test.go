package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/session"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

// loopRig is a session on a Runtime whose Anthropic and OpenAI adapters
// talk to one emulator, and a get_weather tool counting its calls.
type loopRig struct {
	srv     *emulator.Server
	s       *session.Session
	weather session.Tool
	calls   atomic.Int32
	cities  []string
}

func newLoopRig(t *testing.T, model string, replies ...emulator.Reply) *loopRig {
	t.Helper()
	r := &loopRig{srv: emulator.NewServer(emulator.WithReplies(replies...))}
	t.Cleanup(r.srv.Close)
	env := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-test-FAKE", "OPENAI_API_KEY": "sk-test-FAKE",
		"ANTHROPIC_BASE_URL": r.srv.URL, "OPENAI_BASE_URL": r.srv.URL + "/v1",
	}
	rt, err := providers.NewRuntime(adapters.RuntimeOptions{Getenv: func(k string) string { return env[k] }, Logger: quiet,
		Configure: func(c *adapters.Config) { c.Logger = quiet }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	r.s = session.New(session.Options{Model: model, Adapters: rt.Adapter, Logger: quiet})
	r.weather = session.MustTool("get_weather", "The weather in a city.", func(_ context.Context, in weatherIn) (string, error) {
		r.calls.Add(1)
		r.cities = append(r.cities, in.City)
		if in.City == "Atlantis" {
			return "", errors.New("no weather under the sea")
		}
		return "sunny, 21 C in " + in.City, nil
	})
	if _, err := r.s.AddUser(canonical.TextBlock{Text: "What is the weather in Paris?"}); err != nil {
		t.Fatal(err)
	}
	return r
}

// run ranges over Run, returning the text of the text deltas and the
// errors yielded.
func (r *loopRig) run(ctx context.Context, opts session.RunOptions) (string, []error) {
	var text strings.Builder
	var errs []error
	if opts.Tools == nil {
		opts.Tools = []session.Tool{r.weather}
	}
	for ev, err := range r.s.Run(ctx, opts) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ev.Type == canonical.EventTextDelta {
			text.WriteString(ev.Text)
		}
	}
	return text.String(), errs
}

// results returns the tool results in the history, by tool call id.
func results(s *session.Session) map[string]canonical.ToolResultBlock {
	out := map[string]canonical.ToolResultBlock{}
	for _, m := range s.Messages() {
		for _, b := range m.Content {
			if r, ok := b.(canonical.ToolResultBlock); ok {
				out[r.ToolUseID] = r
			}
		}
	}
	return out
}

func roles(s *session.Session) string {
	var rs []string
	for _, m := range s.Messages() {
		rs = append(rs, string(m.Role))
	}
	return strings.Join(rs, " ")
}

func call(id, name, input string) emulator.ToolCall {
	return emulator.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func TestRunToolLoop(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{ToolCalls: []emulator.ToolCall{call("toolu_01", "get_weather", `{"city":"Paris"}`)},
			Usage: canonical.TokenUsage{InputTokens: 1000, OutputTokens: 100}},
		emulator.Reply{Text: "It is sunny in Paris.", Usage: canonical.TokenUsage{InputTokens: 2000, OutputTokens: 10}})
	text, errs := r.run(context.Background(), session.RunOptions{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if text != "It is sunny in Paris." {
		t.Errorf("streamed text %q", text)
	}
	if got := roles(r.s); got != "user assistant tool assistant" {
		t.Errorf("history %s", got)
	}
	if fmt.Sprint(r.cities) != "[Paris]" {
		t.Errorf("tool called with %v", r.cities)
	}
	// The result answers the call by its canonical id, and the second
	// request sends it back under Anthropic's own id.
	tu := r.s.Messages()[1].Content.ToolUses()[0]
	res, ok := results(r.s)[tu.ID]
	if !ok || res.IsError || canonical.Blocks(res.Content).Text() != "sunny, 21 C in Paris" {
		t.Errorf("result for %s: %+v", tu.ID, res)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, want := range []string{`"tool_use_id":"toolu_01"`, `"name":"get_weather"`, `sunny, 21 C in Paris`} {
		if !strings.Contains(string(reqs[1].Body), want) {
			t.Errorf("second request lacks %s:\n%s", want, reqs[1].Body)
		}
	}
	// Cost is the two calls at Sonnet 4.6's $3/$15 per million tokens:
	// 0.003 + 0.0015 + 0.006 + 0.00015.
	if got := r.s.Cost().String(); got != "0.01065" {
		t.Errorf("cost %s USD, want 0.01065", got)
	}
}

func TestRunAnswersToolErrorsAndUnknownTools(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{ToolCalls: []emulator.ToolCall{
			call("toolu_a", "get_weather", `{"city":"Atlantis"}`),
			call("toolu_b", "launch_rocket", `{}`),
			call("toolu_c", "get_weather", `{"city":5}`),
		}},
		emulator.Reply{Text: "Sorry."})
	if _, errs := r.run(context.Background(), session.RunOptions{}); len(errs) > 0 {
		t.Fatal(errs)
	}
	uses := r.s.Messages()[1].Content.ToolUses()
	if len(uses) != 3 {
		t.Fatalf("%d tool uses", len(uses))
	}
	res := results(r.s)
	for i, want := range []string{
		"Error: no weather under the sea",
		`Error: no tool named "launch_rocket" can be run; the tools that can are: get_weather`,
		"input#/city",
	} {
		got := res[uses[i].ID]
		if !got.IsError || !strings.Contains(canonical.Blocks(got.Content).Text(), want) {
			t.Errorf("call %d (%s): result %+v, want an is_error result containing %q", i, uses[i].Name, got, want)
		}
	}
	// The function ran once: not for the unknown tool, not for the input
	// that does not match the schema.
	if r.calls.Load() != 1 {
		t.Errorf("tool function ran %d times, want 1", r.calls.Load())
	}
	if n := strings.Count(string(r.srv.Requests()[1].Body), `"is_error":true`); n != 3 {
		t.Errorf("second request has %d is_error results, want 3", n)
	}
}

func TestRunStopsAtMaxRounds(t *testing.T) {
	again := emulator.Reply{ToolCalls: []emulator.ToolCall{call("", "get_weather", `{"city":"Paris"}`)}}
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6", again, again, emulator.Reply{Text: "Done."})
	_, errs := r.run(context.Background(), session.RunOptions{MaxRounds: 2})
	if len(errs) != 1 || !errors.Is(errs[0], session.ErrMaxRounds) {
		t.Fatalf("errors %v, want ErrMaxRounds", errs)
	}
	if n := len(r.srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	// The last round's calls were run and answered: the history ends on
	// their result, and the next Run sends it.
	if got := roles(r.s); got != "user assistant tool assistant tool" {
		t.Errorf("history %s", got)
	}
	text, errs := r.run(context.Background(), session.RunOptions{})
	if len(errs) > 0 || text != "Done." {
		t.Fatalf("second Run: %q, %v", text, errs)
	}
	if n := len(r.srv.Requests()); n != 3 || r.calls.Load() != 2 {
		t.Errorf("%d model calls and %d tool calls, want 3 and 2", n, r.calls.Load())
	}
}

func TestRunCancel(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{ToolCalls: []emulator.ToolCall{call("", "slow", `{"city":"Paris"}`), call("", "slow", `{"city":"Rome"}`)}},
		emulator.Reply{Text: "never sent"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := session.MustTool("slow", "Cancels the run.", func(ctx context.Context, in weatherIn) (string, error) {
		cancel()
		return "", ctx.Err()
	})
	_, errs := r.run(ctx, session.RunOptions{Tools: []session.Tool{slow}})
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors %v, want context.Canceled", errs)
	}
	if n := len(r.srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	// The first call ran (and failed with the cancellation); the second
	// was never run and has no result.
	uses := r.s.Messages()[1].Content.ToolUses()
	res := results(r.s)
	if got, ok := res[uses[0].ID]; !ok || !got.IsError {
		t.Errorf("first call's result %+v, want an is_error result", got)
	}
	if _, ok := res[uses[1].ID]; ok {
		t.Error("second call has a result; it should never have run")
	}
}

func TestRunBreakStopsTheLoop(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{Text: "Let me look.", ToolCalls: []emulator.ToolCall{call("", "get_weather", `{"city":"Paris"}`)}},
		emulator.Reply{Text: "never sent"})
	for ev, err := range r.s.Run(context.Background(), session.RunOptions{Tools: []session.Tool{r.weather}}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == canonical.EventTextDelta {
			break
		}
	}
	if n := len(r.srv.Requests()); n != 1 || r.calls.Load() != 0 {
		t.Errorf("%d model calls and %d tool calls after a break, want 1 and 0", n, r.calls.Load())
	}
	if st := r.s.Messages()[1].Metadata.EffectiveStatus(); st != canonical.StatusCancelled {
		t.Errorf("the broken turn has status %s, want cancelled", st)
	}
}

func TestRunAcrossASwap(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{ToolCalls: []emulator.ToolCall{call("toolu_01", "get_weather", `{"city":"Paris"}`)}},
		emulator.Reply{Text: "Sunny in Paris."},
		emulator.Reply{ToolCalls: []emulator.ToolCall{call("call_02", "get_weather", `{"city":"Rome"}`)}},
		emulator.Reply{Text: "Sunny in Rome too."})
	if _, errs := r.run(context.Background(), session.RunOptions{}); len(errs) > 0 {
		t.Fatal(errs)
	}
	// A model whose declaration lacks tool use is refused with its reason,
	// and the active model stays.
	var se *session.SwapError
	if err := r.s.Swap("llamacpp:tinyllama-1.1b"); !errors.As(err, &se) || !strings.Contains(err.Error(), "tool") {
		t.Fatalf("swap to a model without tools: %v, want a *SwapError about tools", err)
	}
	if err := r.s.Swap("openai:gpt-5"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.AddUser(canonical.TextBlock{Text: "And in Rome?"}); err != nil {
		t.Fatal(err)
	}
	text, errs := r.run(context.Background(), session.RunOptions{})
	if len(errs) > 0 || text != "Sunny in Rome too." {
		t.Fatalf("after the swap: %q, %v", text, errs)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 4 || !strings.HasSuffix(reqs[2].Path, "/v1/responses") {
		t.Fatalf("requests %d, third to %s", len(reqs), reqs[2].Path)
	}
	// OpenAI gets Anthropic's call under its canonical id, and its own
	// call back under its own id.
	first := r.s.Messages()[1].Content.ToolUses()[0]
	if body := string(reqs[2].Body); !strings.Contains(body, `"call_id":"`+first.ID+`"`) || strings.Contains(body, "toolu_01") {
		t.Errorf("OpenAI request does not carry the Anthropic call as %s:\n%s", first.ID, body)
	}
	if body := string(reqs[3].Body); !strings.Contains(body, `"call_id":"call_02"`) {
		t.Errorf("OpenAI's own call is not sent back as call_02:\n%s", body)
	}
	last := r.s.Messages()[len(r.s.Messages())-1]
	if last.Metadata.Provider != "openai" || last.Metadata.Routing.Mode != canonical.RoutingManual {
		t.Errorf("last reply by %s, routing %s", last.Metadata.Provider, last.Metadata.Routing.Mode)
	}
}

func TestRunRefusesDuplicateTools(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6")
	_, errs := r.run(context.Background(), session.RunOptions{Tools: []session.Tool{r.weather, r.weather}})
	var ae *canonical.AdapterError
	if len(errs) != 1 || !errors.As(errs[0], &ae) || ae.Code != canonical.CodeInvalidToolDefinition {
		t.Fatalf("errors %v, want invalid_tool_definition", errs)
	}
	if len(r.srv.Requests()) != 0 {
		t.Error("a request was made")
	}
}

func TestNewToolRefusesASchemaOutsideTheSubset(t *testing.T) {
	_, err := session.NewTool("tag", "Tags.", func(context.Context, struct {
		Labels map[string]string `json:"labels"`
	}) (string, error) {
		return "", nil
	})
	if err == nil || !strings.Contains(err.Error(), `tool "tag"`) || !strings.Contains(err.Error(), "#/properties/labels") {
		t.Fatalf("error %v, want one naming the tool and the property", err)
	}
}

// A Swap from the loop body, once the first reply's tool call is in,
// takes effect on the loop's next call.
func TestRunSwapFromTheLoopBody(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{ToolCalls: []emulator.ToolCall{call("toolu_01", "get_weather", `{"city":"Paris"}`)}},
		emulator.Reply{Text: "Sunny."})
	for ev, err := range r.s.Run(context.Background(), session.RunOptions{Tools: []session.Tool{r.weather}}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == canonical.EventMessageComplete && r.s.Model() != "openai:gpt-5" {
			if err := r.s.Swap("openai:gpt-5"); err != nil {
				t.Fatal(err)
			}
		}
	}
	reqs := r.srv.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/messages" || reqs[1].Path != "/v1/responses" {
		t.Fatalf("requests: %d", len(reqs))
	}
	msgs := r.s.Messages()
	if got := msgs[len(msgs)-1].Metadata.Provider; got != "openai" {
		t.Errorf("the reply after the swap came from %s", got)
	}
	if !strings.Contains(string(reqs[1].Body), "sunny, 21 C in Paris") {
		t.Errorf("OpenAI was not sent the tool result:\n%s", reqs[1].Body)
	}
}

// Cancelling the context mid-stream ends the call as cancelled (kept,
// its tool call never run) and Run with the context's error.
func TestRunCancelMidStream(t *testing.T) {
	r := newLoopRig(t, "anthropic:claude-sonnet-4-6",
		emulator.Reply{Text: "Let me look that up for you.", ToolCalls: []emulator.ToolCall{call("", "get_weather", `{"city":"Paris"}`)}},
		emulator.Reply{Text: "never sent"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	for ev, err := range r.s.Run(ctx, session.RunOptions{Tools: []session.Tool{r.weather}}) {
		if err != nil {
			last = err
		}
		if ev.Type == canonical.EventTextDelta {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("last error %v, want context.Canceled", last)
	}
	if n := len(r.srv.Requests()); n != 1 || r.calls.Load() != 0 {
		t.Errorf("%d model calls and %d tool calls, want 1 and 0", n, r.calls.Load())
	}
	if st := r.s.Messages()[1].Metadata.EffectiveStatus(); st != canonical.StatusCancelled {
		t.Errorf("the cancelled turn has status %s", st)
	}
}

// FuzzToolInput feeds arbitrary input to a NewTool function: it must
// call the function with what decodes into the input type and answer
// everything else with an error, never panic.
func FuzzToolInput(f *testing.F) {
	type in struct {
		City  string   `json:"city"`
		Days  uint8    `json:"days,omitempty"`
		Tags  []string `json:"tags,omitempty"`
		Where *struct {
			Lat float64 `json:"lat"`
		} `json:"where,omitempty"`
	}
	var got in
	tool := session.MustTool("t", "A tool.", func(_ context.Context, v in) (string, error) {
		got = v
		return "ok", nil
	})
	for _, seed := range []string{`{"city":"Paris"}`, `{"city":"Paris","days":300}`, `{"mode":1}`, `{"where":{"lat":1e400}}`, `[]`, `null`, ``, `{"city":"a"}{"city":"b"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		got = in{}
		out, err := tool.Func(context.Background(), input)
		if err != nil {
			if out != nil || !strings.HasPrefix(err.Error(), "invalid input for tool t: ") {
				t.Fatalf("error %q with content %v", err, out)
			}
			return
		}
		if out.Text() != "ok" {
			t.Fatalf("content %v", out)
		}
		// What the function got encodes to JSON that decodes the same.
		again, err := tool.Func(context.Background(), mustJSON(t, got))
		if err != nil || again.Text() != "ok" {
			t.Fatalf("the decoded input %+v does not decode again: %v", got, err)
		}
	})
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
