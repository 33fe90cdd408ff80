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

func TestValidateFromAdapter(t *testing.T) {
	f, err := os.Open("testdata/from-adapter.txt")
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
		err := protocol.ValidateFromAdapter([]byte(line))
		switch {
		case verdict == "ok" && err != nil:
			t.Errorf("testdata line %d: %v", n, err)
		case verdict == "bad" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("testdata line %d: got %v, want an error containing %q", n, err, want)
		}
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

// Tool inputs travel byte for byte when they fit on a line: some wire
// formats send them on as text.
func TestWriterKeepsToolInputs(t *testing.T) {
	var buf bytes.Buffer
	w := protocol.NewWriter(&buf)
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
	if got := string(blocks[2].(canonical.ToolUseBlock).Input); got != `{"a":1}` {
		t.Errorf("multi-line input arrived as %q, want it compacted", got)
	}
	if got := string(req.Messages[0].Content[1].(canonical.ToolUseBlock).Input); got != string(spaced) {
		t.Errorf("Write changed the caller's request: %s", got)
	}
	if err := protocol.ValidateToAdapter(line); err != nil {
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
