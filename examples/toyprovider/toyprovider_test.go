package toyprovider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/examples/toyprovider"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// toyServer plays the toy API: it answers each request with the next of
// its scripted replies (the last repeats) and records what it received.
type toyServer struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []reply
	received []received
}

type reply struct {
	status int
	body   string // a JSON body, or SSE events when it starts with "event:" or "data:"
}

type received struct {
	key  string
	body map[string]any
}

func newToyServer(t *testing.T, replies ...reply) *toyServer {
	s := &toyServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &body)
		s.mu.Lock()
		rep := s.replies[min(len(s.received), len(s.replies)-1)]
		s.received = append(s.received, received{key: r.Header.Get("Toy-Key"), body: body})
		s.mu.Unlock()
		if r.URL.Path != "/v1/toy" {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(rep.body, "event:") || strings.HasPrefix(rep.body, "data:") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		if rep.status == 0 {
			rep.status = 200
		}
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *toyServer) got() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.received...)
}

func newAdapter(t *testing.T, s *toyServer, mod func(*adapters.Config)) *driver.Adapter {
	t.Helper()
	cfg := adapters.Config{
		APIKey:     "toy-key-FAKE",
		BaseURL:    s.URL,
		MaxRetries: 2,
		Clock:      adaptertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		Logger:     slog.New(slog.DiscardHandler),
	}
	if mod != nil {
		mod(&cfg)
	}
	a, err := toyprovider.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func request(texts ...string) *canonical.Request {
	req := &canonical.Request{Model: "toy:toy-1", SystemPrompt: "Be brief."}
	for i, text := range texts {
		role := canonical.RoleUser
		if i%2 == 1 {
			role = canonical.RoleAssistant
		}
		req.Messages = append(req.Messages, canonical.Message{ID: fmt.Sprint("m", i), Role: role, Content: canonical.Blocks{canonical.TextBlock{Text: text}}})
	}
	return req
}

func TestComplete(t *testing.T) {
	s := newToyServer(t, reply{body: `{"id":"t_1","text":"Hello!","end":"done","usage":{"in":5,"out":2}}`})
	a := newAdapter(t, s, nil)
	resp, err := a.Complete(context.Background(), request("hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := struct {
		Content canonical.Blocks
		Stop    canonical.StopReason
		Usage   canonical.TokenUsage
	}{canonical.Blocks{canonical.TextBlock{Text: "Hello!"}}, canonical.StopEndTurn, canonical.TokenUsage{InputTokens: 5, OutputTokens: 2}}
	got := want
	got.Content, got.Stop, got.Usage = resp.Content, resp.StopReason, resp.Usage
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	wantSent := []received{{key: "toy-key-FAKE", body: map[string]any{
		"model": "toy-1", "system": "Be brief.", "stream": false,
		"turns": []any{map[string]any{"who": "user", "text": "hi"}},
	}}}
	if diff := cmp.Diff(wantSent, s.got(), cmp.AllowUnexported(received{})); diff != "" {
		t.Errorf("wire request (-want +got):\n%s", diff)
	}
}

// TestStream: a streamed answer keeps the stream invariants and gives the
// same response as the whole one.
func TestStream(t *testing.T) {
	s := newToyServer(t, reply{body: "data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo!\"}\n\ndata: {\"end\":\"done\",\"usage\":{\"in\":5,\"out\":2}}\n\n"})
	a := newAdapter(t, s, nil)
	evs, err := adaptertest.Collect(a.Stream(context.Background(), request("hi")))
	if err != nil {
		t.Fatal(err)
	}
	if f := streamcheck.Check(evs); len(f) > 0 {
		t.Fatalf("stream invariants: %v", f)
	}
	last := evs[len(evs)-1].Response
	if last.Content.Text() != "Hello!" || last.StopReason != canonical.StopEndTurn || last.Usage.OutputTokens != 2 {
		t.Errorf("final response %+v", last)
	}
	if got := s.got()[0].body["stream"]; got != true {
		t.Errorf("stream = %v, want true", got)
	}
}

// TestRetryThenSuccess: the driver retries toy's slow_down (a 429) with
// backoff, without the provider writing a line of retry code.
func TestRetryThenSuccess(t *testing.T) {
	s := newToyServer(t,
		reply{status: 429, body: `{"problem":{"kind":"slow_down","text":"too fast"}}`},
		reply{body: `{"text":"ok","end":"done"}`})
	var attempts []adapters.Attempt
	a := newAdapter(t, s, func(c *adapters.Config) { c.OnAttempt = func(at adapters.Attempt) { attempts = append(attempts, at) } })
	resp, err := a.Complete(context.Background(), request("hi"))
	if err != nil || resp.Content.Text() != "ok" {
		t.Fatalf("Complete = %v, %v", resp, err)
	}
	if len(attempts) != 2 || canonical.ClassOf(attempts[0].Err) != canonical.ErrRateLimit || attempts[0].Wait != time.Second {
		t.Errorf("attempts %+v: want a rate_limit attempt waiting 1s, then success", attempts)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     reply
		class canonical.ErrorClass
	}{
		{"bad key", reply{status: 401, body: `{"problem":{"kind":"bad_key","text":"who are you"}}`}, canonical.ErrAuth},
		{"bad request", reply{status: 400, body: `{"problem":{"kind":"bad_request","text":"no"}}`}, canonical.ErrInvalidRequest},
		{"not a problem", reply{status: 418, body: `teapot`}, canonical.ErrInvalidRequest},
		{"garbage 200", reply{body: `{"text":`}, canonical.ErrServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAdapter(t, newToyServer(t, tc.r), nil)
			_, err := a.Complete(context.Background(), request("hi"))
			if got := canonical.ClassOf(err); got != tc.class {
				t.Errorf("class %q (%v), want %q", got, err, tc.class)
			}
		})
	}
}

// TestMidStreamProblem: a problem event ends the stream with stop reason
// error, then the classified error (000 §6.5), and the partial text is
// kept.
func TestMidStreamProblem(t *testing.T) {
	s := newToyServer(t, reply{body: "data: {\"delta\":\"Hel\"}\n\nevent: problem\ndata: {\"problem\":{\"kind\":\"broken\",\"text\":\"oops\"}}\n\n"})
	evs, err := adaptertest.Collect(newAdapter(t, s, nil).Stream(context.Background(), request("hi")))
	if canonical.ClassOf(err) != canonical.ErrServer {
		t.Fatalf("error %v, want server_error", err)
	}
	last := evs[len(evs)-1]
	if last.Type != canonical.EventMessageComplete || last.Response.StopReason != canonical.StopError || last.Response.Content.Text() != "Hel" {
		t.Errorf("last event %+v", last)
	}
}

// TestOptionsAndDrops: the shout option reaches the wire; a thinking
// block toy cannot carry is dropped whole with the lossy-projection WARN,
// and the rest of the turn is sent.
func TestOptionsAndDrops(t *testing.T) {
	s := newToyServer(t, reply{body: `{"text":"OK","end":"done"}`})
	var logs strings.Builder
	a := newAdapter(t, s, func(c *adapters.Config) {
		c.Models = map[string]adapters.ModelConfig{"toy:toy-1": {Options: map[string]any{"shout": true}}}
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	req := request("look", "seen", "again")
	req.Messages[1].Content = append(canonical.Blocks{canonical.ThinkingBlock{Text: "hmm", Signature: "sig"}}, req.Messages[1].Content...)
	if _, err := a.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := s.got()
	wantTurns := []any{
		map[string]any{"who": "user", "text": "look"},
		map[string]any{"who": "bot", "text": "seen"},
		map[string]any{"who": "user", "text": "again"},
	}
	if len(got) != 1 || got[0].body["shout"] != true {
		t.Fatalf("sent %+v, want one request with shout true", got)
	}
	if diff := cmp.Diff(wantTurns, got[0].body["turns"]); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if !strings.Contains(logs.String(), driver.LossyProjectionMsg) || !strings.Contains(logs.String(), "block_type=thinking") {
		t.Errorf("logs %q: want the lossy-projection WARN for the thinking block", logs.String())
	}
	_, err := toyprovider.New(adapters.Config{APIKey: "k", Options: map[string]any{"shout": "yes"}})
	if canonical.CodeOf(err) != canonical.CodeNotConfigured {
		t.Errorf("shout: yes = %v, want the driver's option error", err)
	}
}
