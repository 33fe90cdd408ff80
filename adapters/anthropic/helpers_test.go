package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

const testModel = "anthropic:claude-sonnet-4-6"

// fixturesDir returns ../shared/fixtures/anthropic relative to the module
// root, skipping the test when it is absent.
func fixturesDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	fx := filepath.Join(dir, "..", "shared", "fixtures", "anthropic")
	if _, err := os.Stat(fx); err != nil {
		t.Skipf("shared fixtures absent (%s)", fx)
	}
	return fx
}

func readFixture(t testing.TB, name, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(t), name, file))
	require.NoError(t, err)
	return b
}

// fakeClock records retry sleeps and never waits.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// logBuffer captures log output as JSON lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// entries returns the captured entries, decoded.
func (l *logBuffer) entries(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(l.buf.Bytes()))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			return out
		} else {
			require.NoError(t, err)
		}
		out = append(out, m)
	}
}

// testEnv is an adapter wired to an httptest server.
type testEnv struct {
	a      *Adapter
	srv    *httptest.Server
	clock  *fakeClock
	logs   *logBuffer
	mu     sync.Mutex
	bodies [][]byte
	hdrs   []http.Header
}

// newEnv starts handler behind an adapter; the server records request
// bodies and headers before handler runs.
func newEnv(t testing.TB, handler http.HandlerFunc, mods ...func(*adapters.Config)) *testEnv {
	t.Helper()
	env := &testEnv{clock: newFakeClock(), logs: &logBuffer{}}
	env.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		env.mu.Lock()
		env.bodies = append(env.bodies, body)
		env.hdrs = append(env.hdrs, r.Header.Clone())
		env.mu.Unlock()
		handler(w, r)
	}))
	transport := &http.Transport{}
	cfg := adapters.Config{
		Name:       "anthropic",
		APIKey:     "sk-test-FAKE",
		BaseURL:    env.srv.URL,
		MaxRetries: 2,
		Transport:  transport,
		Clock:      env.clock,
		Logger:     slog.New(slog.NewJSONHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, m := range mods {
		m(&cfg)
	}
	a, err := New(cfg)
	require.NoError(t, err)
	a.rt.Caller.Jitter = func() float64 { return 0 }
	env.a = a
	t.Cleanup(func() {
		env.srv.Close()
		_ = a.Close()
		transport.CloseIdleConnections()
	})
	return env
}

func (e *testEnv) requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.bodies)
}

// body returns the n-th recorded request body, decoded.
func (e *testEnv) body(t testing.TB, n int) map[string]any {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	require.Greater(t, len(e.bodies), n, "request %d was not sent", n)
	var m map[string]any
	require.NoError(t, json.Unmarshal(e.bodies[n], &m))
	return m
}

func (e *testEnv) rawBody(t testing.TB, n int) []byte {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	require.Greater(t, len(e.bodies), n)
	return e.bodies[n]
}

// serve answers every request with status, content type and body.
func serve(status int, contentType string, body []byte, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

// sequence answers the n-th request with handlers[n] (the last repeats).
func sequence(handlers ...http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := handlers[min(n, len(handlers)-1)]
		n++
		mu.Unlock()
		h(w, r)
	}
}

// collect drains a stream.
func collect(seq iter.Seq2[canonical.StreamEvent, error]) ([]canonical.StreamEvent, error) {
	var evs []canonical.StreamEvent
	for ev, err := range seq {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func userText(text string) canonical.Message {
	return canonical.Message{ID: canonical.NewMessageID(), Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func textRequest(text string) *canonical.Request {
	return &canonical.Request{Model: testModel, Messages: []canonical.Message{userText(text)}}
}

// checkInvariants asserts the stream invariants of 000 §5.2 and that the
// deltas add up to the final content.
func checkInvariants(t testing.TB, evs []canonical.StreamEvent) *canonical.Response {
	t.Helper()
	require.NotEmpty(t, evs)
	require.Equal(t, canonical.EventMessageStart, evs[0].Type, "first event")
	last := evs[len(evs)-1]
	require.Equal(t, canonical.EventMessageComplete, last.Type, "last event")
	require.NotNil(t, last.Response)

	type toolState struct{ started, ended bool }
	tools := map[string]*toolState{}
	texts := map[int]string{}
	thinking := map[int]string{}
	maxIndex := -1
	for i, ev := range evs {
		if i > 0 {
			require.NotEqual(t, canonical.EventMessageStart, ev.Type, "event %d: second message.start", i)
		}
		if i < len(evs)-1 {
			require.NotEqual(t, canonical.EventMessageComplete, ev.Type, "event %d: message.complete before the end", i)
		}
		switch ev.Type {
		case canonical.EventTextDelta, canonical.EventThinkingDelta, canonical.EventToolUseStart, canonical.EventToolUseInput, canonical.EventToolUseEnd:
			require.GreaterOrEqual(t, ev.Index, maxIndex, "event %d (%s): index went back", i, ev.Type)
			maxIndex = ev.Index
		}
		switch ev.Type {
		case canonical.EventTextDelta:
			texts[ev.Index] += ev.Text
		case canonical.EventThinkingDelta:
			thinking[ev.Index] += ev.Text
		case canonical.EventToolUseStart:
			require.NotContains(t, tools, ev.ToolUseID, "event %d: second tool.use_start", i)
			require.True(t, canonical.IsToolUseID(ev.ToolUseID), "event %d: tool id %q", i, ev.ToolUseID)
			tools[ev.ToolUseID] = &toolState{started: true}
		case canonical.EventToolUseInput:
			st := tools[ev.ToolUseID]
			require.NotNil(t, st, "event %d: input before start", i)
			require.False(t, st.ended, "event %d: input after end", i)
			require.NotEmpty(t, ev.PartialJSON)
		case canonical.EventToolUseEnd:
			st := tools[ev.ToolUseID]
			require.NotNil(t, st, "event %d: end before start", i)
			require.False(t, st.ended, "event %d: second end", i)
			st.ended = true
			var obj map[string]any
			require.NoError(t, json.Unmarshal(ev.FinalInput, &obj), "event %d: final_input %s", i, ev.FinalInput)
		}
	}
	for id, st := range tools {
		require.True(t, st.ended, "tool %s never ended", id)
	}
	for i, b := range last.Response.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			require.Equal(t, b.Text, texts[i], "content[%d] text vs deltas", i)
		case canonical.ThinkingBlock:
			require.Equal(t, b.Text, thinking[i], "content[%d] thinking vs deltas", i)
		}
	}
	return last.Response
}

// eventsOf returns the events of type typ.
func eventsOf(evs []canonical.StreamEvent, typ canonical.EventType) []canonical.StreamEvent {
	var out []canonical.StreamEvent
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// sse renders events as a text/event-stream body.
func sse(events ...string) []byte {
	var b bytes.Buffer
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return b.Bytes()
}
