package protocol_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/protocol"
	"github.com/metis-llm/metis/session/sessiontest"
)

// Each published version's from-adapter schema accepts and refuses the
// lines of testdata/from-adapter-<version>.txt.
func TestValidateFromAdapter(t *testing.T) {
	for _, version := range protocol.Versions {
		t.Run(version, func(t *testing.T) {
			name := "testdata/from-adapter-" + strings.TrimPrefix(version, "metis.adapter/") + ".txt"
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			n := 0
			for sc.Scan() {
				n++
				text := sc.Text()
				if text == "" || strings.HasPrefix(text, "#") {
					continue
				}
				verdict, line, _ := strings.Cut(text, "\t")
				want := ""
				if strings.HasPrefix(verdict, "bad") {
					want, line, _ = strings.Cut(line, "\t")
				}
				err := protocol.ValidateFromAdapterVersion(version, []byte(line))
				switch {
				case verdict == "ok" && err != nil:
					t.Errorf("%s:%d: %v", name, n, err)
				case verdict == "bad" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("%s:%d: got %v, want an error containing %q", name, n, err, want)
				}
			}
		})
	}
	if err := protocol.ValidateFromAdapterVersion("metis.adapter/v9", []byte(`{"type":"end","id":"1"}`)); err == nil || !strings.Contains(err.Error(), "not one metis speaks") {
		t.Errorf("an unknown version: %v", err)
	}
}

// Version 2's to-adapter schema accepts and refuses the lines of
// testdata/to-adapter-v2.txt (minor 1's token lines among them).
func TestValidateToAdapter(t *testing.T) {
	const name = "testdata/to-adapter-v2.txt"
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for n, text := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		verdict, line, _ := strings.Cut(text, "\t")
		want := ""
		if verdict == "bad" {
			want, line, _ = strings.Cut(line, "\t")
		}
		err := protocol.ValidateToAdapterVersion(protocol.V2, []byte(line))
		switch {
		case verdict == "ok" && err != nil:
			t.Errorf("%s:%d: %v", name, n+1, err)
		case verdict == "bad" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s:%d: got %v, want an error containing %q", name, n+1, err, want)
		}
	}
	// Version 1 has no token lines.
	if err := protocol.ValidateToAdapterVersion(protocol.V1, []byte(`{"type":"token","id":"3","token":{"access_token":"t"}}`)); err == nil {
		t.Error("v1's schema accepts a token line")
	}
}

func TestLineReader(t *testing.T) {
	r := protocol.NewLineReader(strings.NewReader("a\n\nlong " + strings.Repeat("x", 200<<10) + "\ntail"))
	var got []string
	for {
		line, n, err := r.ReadLine()
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "line 4 ends without a newline") {
				t.Errorf("last error %v; want line 4 unterminated", err)
			}
			break
		}
		got = append(got, string(line[:min(len(line), 6)]))
		if n != len(got) {
			t.Errorf("line %q numbered %d, want %d", line, n, len(got))
		}
	}
	if diff := cmp.Diff([]string{"a", "", "long x"}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\n"))
	f.Add([]byte("\n\n\nx"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := protocol.NewLineReader(bytes.NewReader(data))
		var joined []byte
		for {
			line, _, err := r.ReadLine()
			if err != nil {
				if errors.Is(err, io.EOF) && !bytes.Equal(joined, data) {
					t.Fatalf("lines join to %q, want %q", joined, data)
				}
				return
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %q holds a newline", line)
			}
			joined = append(append(joined, line...), '\n')
		}
	})
}

// Tool inputs travel byte for byte: some wire formats send them on as
// text. One with line breaks goes compacted on the line and, in v2, its
// text in raw_inputs, which Decode puts back; v1 has no raw_inputs and
// compacts it.
func TestWriterKeepsToolInputs(t *testing.T) {
	for _, version := range protocol.Versions {
		t.Run(version, func(t *testing.T) { testWriterKeepsToolInputs(t, version) })
	}
}

func testWriterKeepsToolInputs(t *testing.T, version string) {
	var buf bytes.Buffer
	w := protocol.NewWriter(&buf)
	w.SetVersion(version)
	spaced := json.RawMessage(`{"path": "LICENSE",  "n": [1, 2]}`)
	multi := json.RawMessage("{\n  \"a\": 1\n}")
	req := &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{{Role: canonical.RoleAssistant,
		Content: canonical.Blocks{canonical.TextBlock{Text: "x"}, canonical.ToolUseBlock{ID: "t1", Name: "f", Input: spaced}, canonical.ToolUseBlock{ID: "t2", Name: "f", Input: multi}}}}}
	if err := w.Write(&protocol.Message{Type: protocol.TypeStream, ID: "1", Request: req}); err != nil {
		t.Fatal(err)
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
		t.Fatalf("wrote %q, want one line", buf.Bytes())
	}
	m, err := protocol.Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	blocks := m.Request.Messages[0].Content
	if got := string(blocks[1].(canonical.ToolUseBlock).Input); got != string(spaced) {
		t.Errorf("spaced input arrived as %s", got)
	}
	wantMulti := string(multi)
	if version == protocol.V1 {
		wantMulti = `{"a":1}`
	}
	if got := string(blocks[2].(canonical.ToolUseBlock).Input); got != wantMulti {
		t.Errorf("multi-line input arrived as %q, want %q", got, wantMulti)
	}
	if got := string(req.Messages[0].Content[1].(canonical.ToolUseBlock).Input); got != string(spaced) {
		t.Errorf("Write changed the caller's request: %s", got)
	}
	if err := protocol.ValidateToAdapterVersion(version, line); err != nil {
		t.Errorf("the line is invalid: %v", err)
	}
}

// pipeConn drives Serve as metis would.
type pipeConn struct {
	t   *testing.T
	in  *io.PipeWriter
	out *protocol.LineReader
	w   *protocol.Writer
}

func serve(t *testing.T, a adapters.Adapter, cfg *adapters.Config) (*pipeConn, chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- protocol.Serve(context.Background(), inR, outW, protocol.AdapterInfo{Name: "test"}, func(c adapters.Config) (adapters.Adapter, error) {
			if c.Clock == nil || c.OnAttempt == nil {
				return nil, errors.New("Serve gave the adapter no clock or attempt observer")
			}
			if cfg != nil {
				*cfg = c
			}
			return a, nil
		})
		outW.Close()
	}()
	p := &pipeConn{t: t, in: inW, out: protocol.NewLineReader(outR), w: protocol.NewWriter(inW)}
	t.Cleanup(func() { inW.Close() })
	return p, done
}

func (p *pipeConn) send(m *protocol.Message) {
	p.t.Helper()
	if err := p.w.Write(m); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipeConn) recv() *protocol.Message {
	p.t.Helper()
	line, _, err := p.out.ReadLine()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := protocol.ValidateFromAdapter(line); err != nil {
		p.t.Fatalf("Serve wrote an invalid line: %v: %s", err, line)
	}
	m, err := protocol.Decode(line)
	if err != nil {
		p.t.Fatal(err)
	}
	return m
}

// Serve streams in lockstep: an event waits for next, and a cancel in
// answer to an event cancels the adapter's context, after which the
// adapter's closing events still flow.
func TestServeStreamsInLockstep(t *testing.T) {
	produced := make(chan int, 10)
	fake := &sessiontest.Adapter{Provider: "anthropic", StreamFunc: func(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
		return func(yield func(canonical.StreamEvent, error) bool) {
			for i := range 5 {
				if ctx.Err() != nil {
					yield(canonical.StreamEvent{Type: canonical.EventMessageComplete, Response: &canonical.Response{RequestID: req.RequestID, Model: req.Model, Provider: "anthropic", Content: canonical.Blocks{}, StopReason: canonical.StopCancelled}}, nil)
					return
				}
				produced <- i
				if !yield(canonical.StreamEvent{Type: canonical.EventTextDelta, MessageID: req.RequestID, Text: "x"}, nil) {
					return
				}
			}
		}
	}}
	p, done := serve(t, fake, nil)
	p.send(&protocol.Message{Type: protocol.TypeInit, ID: "0", Protocol: protocol.Version, Config: &protocol.Config{Name: "anthropic", Type: "anthropic", Models: map[string]protocol.Model{}}})
	if m := p.recv(); m.Type != protocol.TypeReady || m.Adapter.Name != "test" {
		t.Fatalf("got %+v, want ready", m)
	}
	req := &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{}}
	p.send(&protocol.Message{Type: protocol.TypeStream, ID: "1", Request: req})
	if m := p.recv(); m.Type != protocol.TypeEvent || m.Event.Type != canonical.EventTextDelta {
		t.Fatalf("got %+v, want the first text.delta", m)
	}
	time.Sleep(10 * time.Millisecond) // give a runaway stream the chance to run
	if n := len(produced); n != 1 {
		t.Fatalf("the adapter produced %d events before next; want 1", n)
	}
	p.send(&protocol.Message{Type: protocol.TypeNext, ID: "1"})
	if m := p.recv(); m.Type != protocol.TypeEvent {
		t.Fatalf("got %+v, want the second event", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeCancel, ID: "1"})
	if m := p.recv(); m.Type != protocol.TypeEvent || m.Event.Type != canonical.EventMessageComplete || m.Event.Response.StopReason != canonical.StopCancelled {
		t.Fatalf("got %+v, want message.complete cancelled", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeNext, ID: "1"})
	if m := p.recv(); m.Type != protocol.TypeEnd || m.ID != "1" {
		t.Fatalf("got %+v, want end", m)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// Serve asks metis to sleep instead of sleeping, reports attempts, and
// answers requests before init with an error.
func TestServeSleepsThroughMetis(t *testing.T) {
	var cfg adapters.Config
	fake := &sessiontest.Adapter{Provider: "anthropic", CompleteFunc: func(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
		busy := canonical.NewError(canonical.ErrRateLimit, "overloaded", "busy")
		busy.RetryAfter = 2 * time.Second
		cfg.OnAttempt(adapters.Attempt{RequestID: req.RequestID, N: 1, Status: 529, Err: busy, Wait: 2 * time.Second})
		if err := cfg.Clock.Sleep(ctx, 2*time.Second); err != nil {
			return nil, err
		}
		return nil, busy
	}}
	p, done := serve(t, fake, &cfg)
	p.send(&protocol.Message{Type: protocol.TypeCapabilities, ID: "9", Model: "anthropic:x"})
	if m := p.recv(); m.Type != protocol.TypeError || !strings.Contains(m.Error.Message, "no init") {
		t.Fatalf("got %+v, want an error: no init", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeInit, ID: "0", Protocol: protocol.Version, Config: &protocol.Config{Name: "anthropic", Type: "anthropic", Models: map[string]protocol.Model{}}})
	p.recv()
	p.send(&protocol.Message{Type: protocol.TypeComplete, ID: "1", Request: &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{}}})
	want := &protocol.Attempt{N: 1, Status: 529, WaitMS: 2000, Error: &protocol.Error{Class: canonical.ErrRateLimit, Code: "overloaded", Message: "busy", Retryable: true, RetryAfterMS: 2000}}
	m := p.recv()
	if m.Type != protocol.TypeAttempt || m.ID != "1" {
		t.Fatalf("got %+v, want an attempt of call 1", m)
	}
	if diff := cmp.Diff(want, m.Attempt); diff != "" {
		t.Fatalf("attempt (-want +got):\n%s", diff)
	}
	if m := p.recv(); m.Type != protocol.TypeSleep || m.ID != "1" || *m.MS != 2000 {
		t.Fatalf("got %+v, want sleep 2000 ms for call 1", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeSlept, ID: "1"})
	if m := p.recv(); m.Type != protocol.TypeError || m.Error.Class != canonical.ErrRateLimit || m.Error.Message != "busy" {
		t.Fatalf("got %+v, want the rate_limit error", m)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// readyAdapter is a fake adapter with a readiness probe.
type readyAdapter struct {
	*sessiontest.Adapter
	ready func(ctx context.Context, model string) error
}

func (r readyAdapter) Ready(ctx context.Context, model string) error { return r.ready(ctx, model) }

// In v2 the adapter sees canonical tool ids with the provider's ids metis
// sent, the ids it mints go back as tool_ids, its clock reads metis's
// now, its lifecycle events cross as lifecycle lines before the answer,
// and its readiness probe answers probe requests.
func TestServeV2(t *testing.T) {
	var cfg adapters.Config
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var sawWire, sawNow string
	fake := readyAdapter{Adapter: &sessiontest.Adapter{Provider: "anthropic", CompleteFunc: func(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
		sawWire = req.ToolIDs.Wire("anthropic", req.Messages[0].Content[0].(canonical.ToolUseBlock).ID)
		sawNow = cfg.Clock.Now().Format(time.RFC3339)
		id := req.ToolIDs.Canonical("anthropic", "toolu_new")
		if again := req.ToolIDs.Canonical("anthropic", "toolu_new"); again != id {
			t.Errorf("the provider's id mapped to %s, then to %s", id, again)
		}
		cfg.Observer.Observe(ctx, adapters.Event{Type: adapters.EventToolInputInvalid, RequestID: req.RequestID, ToolUseID: id, ToolName: "f", Reason: "bad"})
		return &canonical.Response{RequestID: req.RequestID, Model: req.Model, Provider: "anthropic", StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{canonical.ToolUseBlock{ID: id, Name: "f", Input: json.RawMessage(`{}`)}}}, nil
	}}, ready: func(ctx context.Context, model string) error {
		if model != "vllm:q" {
			return canonical.NewError(canonical.ErrInvalidRequest, "model_not_found", "no model %s", model)
		}
		return nil
	}}
	p, done := serve(t, fake, &cfg)
	p.send(&protocol.Message{Type: protocol.TypeInit, ID: "0", Protocol: protocol.V2, Config: &protocol.Config{Name: "anthropic", Type: "anthropic", Models: map[string]protocol.Model{}}})
	if m := p.recv(); m.Type != protocol.TypeReady || m.Protocol != protocol.V2 || !m.Probe {
		t.Fatalf("got %+v, want ready for v2 with a probe", m)
	}
	req := &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{{Role: canonical.RoleAssistant,
		Content: canonical.Blocks{canonical.ToolUseBlock{ID: "tu_old", Name: "f", Input: json.RawMessage(`{}`)}}}}}
	p.send(&protocol.Message{Type: protocol.TypeComplete, ID: "1", Request: req, ToolIDs: map[string]string{"tu_old": "toolu_old"}, Now: &now})
	m := p.recv()
	if m.Type != protocol.TypeLifecycle || m.Lifecycle.Type != adapters.EventToolInputInvalid || m.Lifecycle.ToolName != "f" || m.Lifecycle.Reason != "bad" {
		t.Fatalf("got %+v, want the tool_input_invalid lifecycle line first", m)
	}
	m = p.recv()
	if m.Type != protocol.TypeResponse {
		t.Fatalf("got %+v, want the response", m)
	}
	minted := m.Response.Content[0].(canonical.ToolUseBlock).ID
	if !canonical.IsToolUseID(minted) {
		t.Errorf("the response's tool id %q is not a canonical one", minted)
	}
	if diff := cmp.Diff(map[string]string{minted: "toolu_new"}, m.ToolIDs); diff != "" {
		t.Errorf("tool_ids (-want +got):\n%s", diff)
	}
	if sawWire != "toolu_old" || sawNow != "2026-01-02T03:04:05Z" {
		t.Errorf("the adapter saw wire id %q and now %s; want toolu_old and metis's now", sawWire, sawNow)
	}
	p.send(&protocol.Message{Type: protocol.TypeProbe, ID: "2", Model: "vllm:q"})
	if m := p.recv(); m.Type != protocol.TypeProbe || m.ID != "2" {
		t.Errorf("got %+v, want probe", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeProbe, ID: "3", Model: "vllm:other"})
	if m := p.recv(); m.Type != protocol.TypeError || m.Error.Code != "model_not_found" {
		t.Errorf("got %+v, want the probe's error", m)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// An init of v1 gets v1: ready names it, declares no probe, the adapter
// sees the ids as metis sent them, and no lifecycle line is written.
func TestServeV1(t *testing.T) {
	var cfg adapters.Config
	fake := readyAdapter{Adapter: &sessiontest.Adapter{Provider: "anthropic", CompleteFunc: func(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
		if cfg.Observer != nil {
			t.Errorf("a v1 adapter got an observer")
		}
		id := req.ToolIDs.Canonical("anthropic", "toolu_new")
		return &canonical.Response{RequestID: req.RequestID, Model: req.Model, Provider: "anthropic", StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{canonical.ToolUseBlock{ID: id, Name: "f", Input: json.RawMessage(`{}`)}}}, nil
	}}, ready: func(context.Context, string) error { return nil }}
	p, done := serve(t, fake, &cfg)
	p.send(&protocol.Message{Type: protocol.TypeInit, ID: "0", Protocol: protocol.V1, Config: &protocol.Config{Name: "anthropic", Type: "anthropic", Models: map[string]protocol.Model{}}})
	line, _, err := p.out.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	if err := protocol.ValidateFromAdapterVersion(protocol.V1, line); err != nil {
		t.Fatalf("ready is not valid v1: %v: %s", err, line)
	}
	p.send(&protocol.Message{Type: protocol.TypeComplete, ID: "1", Request: &canonical.Request{RequestID: "req_1", Model: "anthropic:x", Messages: []canonical.Message{}}})
	line, _, err = p.out.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	if err := protocol.ValidateFromAdapterVersion(protocol.V1, line); err != nil {
		t.Fatalf("the answer is not valid v1: %v: %s", err, line)
	}
	m, _ := protocol.Decode(line)
	if m.Type != protocol.TypeResponse || m.Response.Content[0].(canonical.ToolUseBlock).ID != "toolu_new" {
		t.Errorf("got %s, want a response with the provider's id", line)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
