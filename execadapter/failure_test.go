package execadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/protocol"
)

// fakeEnv makes the test binary a misbehaving adapter (fakeAdapter).
const fakeEnv = "EXECADAPTER_FAKE"

// fakeAdapter speaks the protocol well until a stream or complete
// request arrives, then misbehaves as mode says. It returns the exit
// status.
func fakeAdapter(mode string) int {
	if strings.HasPrefix(mode, "tokens-") {
		return tokenFake(mode)
	}
	r := protocol.NewLineReader(os.Stdin)
	out := func(s string) { fmt.Fprintln(os.Stdout, s) }
	for {
		line, _, err := r.ReadLine()
		if err != nil {
			if mode == "bad-exit" {
				return 7
			}
			return 0
		}
		var m protocol.Message
		json.Unmarshal(line, &m)
		switch m.Type {
		case protocol.TypeInit:
			if mode == "refuse" {
				out(`{"type":"error","id":"` + m.ID + `","error":{"class":"auth","code":"not_configured","message":"no key"}}`)
				continue
			}
			if mode == "newer" {
				out(`{"type":"ready","id":"` + m.ID + `","protocol":"metis.adapter/v3","adapter":{"name":"fake"}}`)
				continue
			}
			out(`{"type":"ready","id":"` + m.ID + `","protocol":"metis.adapter/v1","adapter":{"name":"fake","version":"1"}}`)
		case protocol.TypeCapabilities:
			caps, _ := json.Marshal(canonical.Capabilities{SupportsStreaming: true})
			out(`{"type":"capabilities","id":"` + m.ID + `","capabilities":` + string(caps) + `}`)
		case protocol.TypeStream, protocol.TypeComplete:
			switch mode {
			case "crash":
				out(`{"type":"event","id":"` + m.ID + `","event":{"type":"message.start","message_id":"req_1","model":"anthropic:x"}}`)
				r.ReadLine() // next
				fmt.Fprintln(os.Stderr, "Traceback: ZeroDivisionError: boom")
				return 3
			case "hang":
				io.Copy(io.Discard, os.Stdin)
				return 0
			case "hang-after-sleep":
				// Asks for a sleep, takes its answer, then says nothing.
				out(`{"type":"sleep","id":"` + m.ID + `","ms":1000}`)
				r.ReadLine() // slept
				io.Copy(io.Discard, os.Stdin)
				return 0
			case "sleep-after-cancel":
				// The interleaving of a lost wake-up: metis's cancel
				// arrives while the call waits for nothing (between its
				// check of the context and its sleep), and the sleep that
				// follows still waits for its answer, which must come.
				for {
					line, _, err := r.ReadLine()
					if err != nil {
						return 0
					}
					var c protocol.Message
					json.Unmarshal(line, &c)
					if c.Type == protocol.TypeCancel && c.ID == m.ID {
						break
					}
				}
				out(`{"type":"sleep","id":"` + m.ID + `","ms":60000}`)
				line, _, err := r.ReadLine()
				if err != nil {
					return 0
				}
				var answer protocol.Message
				json.Unmarshal(line, &answer)
				out(`{"type":"error","id":"` + m.ID + `","error":{"class":"cancelled","message":"the sleep was answered with ` + answer.Type + `"}}`)
			case "malformed":
				out(`{"type":"event","id":"` + m.ID + `","event":{"type":"text.delta","message_id":"req_1"}}`)
			case "not-json":
				out(`this is not json`)
			case "unknown-id":
				out(`{"type":"end","id":"99"}`)
			case "echo":
				// The request line as the child got it, in an error.
				text, _ := json.Marshal(string(line))
				out(`{"type":"error","id":"` + m.ID + `","error":{"class":"other","message":` + string(text) + `}}`)
			case "stderr", "bad-exit":
				fmt.Fprintln(os.Stderr, "debug: about to answer")
				out(`{"type":"event","id":"` + m.ID + `","event":{"type":"message.start","message_id":"req_1","model":"anthropic:x"}}`)
				r.ReadLine() // next
				resp := `{"request_id":"req_1","model":"anthropic:x","provider":"anthropic","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
				out(`{"type":"event","id":"` + m.ID + `","event":{"type":"message.complete","message_id":"req_1","response":` + resp + `}}`)
				r.ReadLine() // next
				out(`{"type":"end","id":"` + m.ID + `"}`)
			}
		}
	}
}

func startFake(t *testing.T, mode string, opts execadapter.Options) (*execadapter.Adapter, error) {
	t.Helper()
	opts.Command = []string{os.Args[0]}
	opts.Env = []string{fakeEnv + "=" + mode}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	return execadapter.New(adapters.Config{Name: "anthropic", Type: "anthropic", Models: map[string]adapters.ModelConfig{}}, opts)
}

func streamOnce(a *execadapter.Adapter) (events []canonical.StreamEvent, errs []error) {
	req := &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}}}}
	for ev, err := range a.Stream(context.Background(), req) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		events = append(events, ev)
	}
	return events, errs
}

func problems(a *execadapter.Adapter) string {
	var sb strings.Builder
	for _, p := range a.Problems() {
		fmt.Fprintf(&sb, "[%s warn=%v] %s\n", p.Kind, p.Warn, p.Message)
	}
	return sb.String()
}

// Every way a child can misbehave fails the call in flight with an
// adapter_process error and leaves a problem that says what happened,
// to which call, with the evidence.
func TestChildFailuresAreAttributed(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		timeout time.Duration
		want    []string // in the call's error and the problems
	}{
		{"crash", 0, []string{"[crash", "exited (exit status 3) with req_1 in flight", "ZeroDivisionError: boom"}},
		{"hang", 300 * time.Millisecond, []string{"[timeout", "sent nothing for 300ms while req_1 (call 2) waited for the adapter's next line after metis wrote its stream request",
			"the adapter had written no line for this call", "metis last read a line from the adapter (line 1)", "hang"}},
		{"hang-after-sleep", 300 * time.Millisecond, []string{"[timeout", "sent nothing for 300ms while req_1 (call 2) waited for the adapter's next line after metis wrote slept (its answer to the adapter's sleep of 1000 ms)",
			"the adapter's last line for this call was sleep", "metis last read a line from the adapter (line 2)"}},
		{"malformed", 0, []string{"[malformed", "line 2 of its stdout is not valid metis.adapter/v1", "/event: missing property 'text'"}},
		{"not-json", 0, []string{"[malformed", "line 2", "not JSON", "this is not json"}},
		{"unknown-id", 0, []string{"[protocol", `line 2: a "end" line for id "99", which is no call in flight`}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			a, err := startFake(t, tc.mode, execadapter.Options{Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			_, errs := streamOnce(a)
			if len(errs) != 1 {
				t.Fatalf("got errors %v, want one", errs)
			}
			var ae *canonical.AdapterError
			if !errors.As(errs[0], &ae) || ae.Code != execadapter.CodeAdapterProcess || ae.Class != canonical.ErrOther {
				t.Fatalf("error %v is not an adapter_process AdapterError", errs[0])
			}
			all := errs[0].Error() + "\n" + problems(a)
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("error and problems lack %q:\n%s", w, all)
				}
			}
			// The process is not trusted again.
			if _, errs := streamOnce(a); len(errs) != 1 {
				t.Errorf("a second call on the broken process gave %v", errs)
			}
		})
	}
}

func TestStderrIsAProblemUnlessAllowed(t *testing.T) {
	for _, allow := range []bool{false, true} {
		a, err := startFake(t, "stderr", execadapter.Options{AllowStderr: allow})
		if err != nil {
			t.Fatal(err)
		}
		events, errs := streamOnce(a)
		if len(errs) != 0 || len(events) != 2 {
			t.Fatalf("events %v, errors %v; want a clean stream of two events", events, errs)
		}
		a.Close()
		got := problems(a)
		want := fmt.Sprintf("[stderr warn=%v] the adapter wrote 1 line(s) to stderr", allow)
		if !strings.Contains(got, want) || !strings.Contains(got, "[req_1 in flight] debug: about to answer") {
			t.Errorf("problems:\n%s\nwant %q with the line attributed to req_1", got, want)
		}
	}
}

func TestBadExitAndRefusedInit(t *testing.T) {
	a, err := startFake(t, "bad-exit", execadapter.Options{AllowStderr: true})
	if err != nil {
		t.Fatal(err)
	}
	streamOnce(a)
	a.Close()
	if got := problems(a); !strings.Contains(got, "[crash warn=false] exited (exit status 7) when its stdin closed") {
		t.Errorf("problems:\n%s", got)
	}

	_, err = startFake(t, "refuse", execadapter.Options{})
	var ae *canonical.AdapterError
	if !errors.As(err, &ae) || ae.Class != canonical.ErrAuth || ae.Code != canonical.CodeNotConfigured {
		t.Errorf("New with a refused init: %v; want the child's auth/not_configured error", err)
	}

	_, err = execadapter.New(adapters.Config{Name: "anthropic"}, execadapter.Options{Command: []string{"/nonexistent/adapter"}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/adapter") {
		t.Errorf("New with a missing program: %v", err)
	}
}

// A child that speaks v1 (it answers metis's v2 init with ready for v1)
// gets v1 requests: the provider's tool ids, no tool_ids, no now; one
// that answers with a version newer than metis proposed is refused.
func TestVersionNegotiation(t *testing.T) {
	a, err := startFake(t, "echo", execadapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, _, proto := a.Identity(); proto != protocol.V1 {
		t.Errorf("Identity gives protocol %s, want %s", proto, protocol.V1)
	}
	ids := adapters.NewToolIDMap()
	ids.Bind("tu_01", "anthropic", "toolu_01")
	req := &canonical.Request{RequestID: "req_1", Model: "anthropic:x", ToolIDs: ids, Messages: []canonical.Message{
		{Role: canonical.RoleAssistant, Content: canonical.Blocks{canonical.ToolUseBlock{ID: "tu_01", Name: "f", Input: json.RawMessage(`{}`)}}},
		{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_01", Content: canonical.Blocks{canonical.TextBlock{Text: "ok"}}}}},
	}}
	_, err = a.Complete(context.Background(), req)
	if err == nil {
		t.Fatal("the echo child answered no error")
	}
	line := err.(*canonical.AdapterError).Message
	if err := protocol.ValidateToAdapterVersion(protocol.V1, []byte(line)); err != nil {
		t.Errorf("the child got a line that is not v1: %v: %s", err, line)
	}
	if !strings.Contains(line, `"id":"toolu_01"`) || !strings.Contains(line, `"tool_use_id":"toolu_01"`) || strings.Contains(line, "tu_01") {
		t.Errorf("the v1 child got %s; want the provider's tool ids only", line)
	}

	_, err = startFake(t, "newer", execadapter.Options{})
	if err == nil || !strings.Contains(err.Error(), `ready names protocol "metis.adapter/v3"; metis speaks metis.adapter/v1, metis.adapter/v2`) {
		t.Errorf("a child of a newer version: %v", err)
	}
}

// A cancel the child took while its call waited for nothing does not
// answer the sleep the call asks for next: metis answers that sleep too
// (with cancel), so the call ends instead of hanging until the timeout.
// The fake child forces the order: it asks for the sleep only once the
// cancel has arrived.
func TestSleepAfterATakenCancelIsAnswered(t *testing.T) {
	a, err := startFake(t, "sleep-after-cancel", execadapter.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}}}}
	_, err = a.Complete(ctx, req)
	var ae *canonical.AdapterError
	if !errors.As(err, &ae) || ae.Class != canonical.ErrCancelled || !strings.Contains(ae.Message, "answered with cancel") {
		t.Fatalf("Complete: %v; want the child's cancelled error, its sleep answered with cancel\n%s", err, problems(a))
	}
	if p := problems(a); p != "" {
		t.Errorf("problems: %s", p)
	}
}
