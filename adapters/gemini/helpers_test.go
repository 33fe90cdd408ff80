package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

const (
	testModel   = "gemini:gemini-2.5-pro"
	testModel3  = "gemini:gemini-3-pro-preview"
	testAPIKey  = "sk-test-FAKE"
	sseType     = "text/event-stream"
	jsonType    = "application/json; charset=UTF-8"
	fixturesAPI = "gemini"
)

// fixturesRoot returns ../shared/fixtures/gemini relative to the module
// root (found by walking up to go.mod).
func fixturesRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test directory")
		}
		dir = parent
	}
	fx := filepath.Join(dir, "..", "shared", "fixtures", fixturesAPI)
	if _, err := os.Stat(fx); err != nil {
		return "", err
	}
	return fx, nil
}

// fixturesDir is fixturesRoot, skipping the test when the fixtures are
// absent.
func fixturesDir(tb testing.TB) string {
	tb.Helper()
	dir, err := fixturesRoot()
	if err != nil {
		tb.Skipf("shared fixtures absent: %v", err)
	}
	return dir
}

func readFixture(tb testing.TB, name, file string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(tb), name, file))
	require.NoError(tb, err)
	return b
}

// fixtureStatus reads meta.json's status.
func fixtureStatus(tb testing.TB, name string) int {
	tb.Helper()
	var meta struct {
		Status int `json:"status"`
	}
	require.NoError(tb, json.Unmarshal(readFixture(tb, name, "meta.json"), &meta))
	return meta.Status
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
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

// reply is one canned HTTP response.
type reply struct {
	status  int
	header  map[string]string
	body    []byte
	handler http.HandlerFunc // overrides the rest when set
}

// recorded is one request the test server received.
type recorded struct {
	method string
	url    string
	header http.Header
	body   []byte
}

// testEnv is an adapter wired to an httptest server that answers with
// replies in order (the last one repeats).
type testEnv struct {
	a         *Adapter
	srv       *httptest.Server
	transport *http.Transport
	clock     *fakeClock
	logs      *logBuffer

	mu       sync.Mutex
	replies  []reply
	requests []recorded
	attempts []adapters.Attempt
}

func newEnv(t *testing.T, replies ...reply) *testEnv {
	t.Helper()
	e := &testEnv{clock: newFakeClock(), logs: &logBuffer{}, replies: replies}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	transport := &http.Transport{}
	e.transport = transport
	t.Cleanup(transport.CloseIdleConnections)
	a, err := New(adapters.Config{
		APIKey:     testAPIKey,
		BaseURL:    e.srv.URL,
		MaxRetries: 2,
		Transport:  transport,
		Clock:      e.clock,
		Logger:     slog.New(slog.NewJSONHandler(e.logs, nil)),
		OnAttempt: func(at adapters.Attempt) {
			e.mu.Lock()
			e.attempts = append(e.attempts, at)
			e.mu.Unlock()
		},
	})
	require.NoError(t, err)
	a.rt.Caller.Jitter = func() float64 { return 0 }
	e.a = a
	return e
}

func (e *testEnv) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	n := len(e.requests)
	e.requests = append(e.requests, recorded{method: r.Method, url: r.URL.String(), header: r.Header.Clone(), body: body})
	rep := e.replies[min(n, len(e.replies)-1)]
	e.mu.Unlock()
	if rep.handler != nil {
		rep.handler(w, r)
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	w.Write(rep.body)
}

func (e *testEnv) Requests() []recorded {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]recorded(nil), e.requests...)
}

// sse and jsonReply build canned replies.
func sseReply(body []byte) reply {
	return reply{status: 200, header: map[string]string{"Content-Type": sseType}, body: body}
}

func jsonReply(status int, body []byte) reply {
	return reply{status: status, header: map[string]string{"Content-Type": jsonType}, body: body}
}

// userRequest is a one-message request.
func userRequest(model, text string) *canonical.Request {
	return &canonical.Request{
		RequestID: canonical.NewRequestID(),
		Model:     model,
		Messages:  []canonical.Message{userMsg(text)},
	}
}

func userMsg(text string) canonical.Message {
	return canonical.Message{ID: canonical.NewMessageID(), Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
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

// final returns the response of the last event, which must be
// message.complete.
func final(t *testing.T, evs []canonical.StreamEvent) *canonical.Response {
	t.Helper()
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	require.Equal(t, canonical.EventMessageComplete, last.Type)
	require.NotNil(t, last.Response)
	return last.Response
}

// decodeEvents runs decodeStream over body with an event-collecting
// Assembler, the way Runtime.Stream does.
func decodeEvents(t testing.TB, body []byte, ids canonical.ToolIDMap) ([]canonical.StreamEvent, *adapters.Assembler, error) {
	t.Helper()
	var evs []canonical.StreamEvent
	a := adapters.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		if err == nil {
			evs = append(evs, ev)
		}
		return true
	}, DefaultName, testModel, "req_test", ids)
	err := decodeStream(bytes.NewReader(body), a)
	return evs, a, err
}

// wireBody decodes a request body the adapter sent.
func wireBody(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m), "request body: %s", body)
	return m
}

// path walks a decoded JSON value by keys and indexes.
func path(t *testing.T, v any, keys ...any) any {
	t.Helper()
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "want an object at %q, have %T", k, v)
			v = m[k]
		case int:
			l, ok := v.([]any)
			require.True(t, ok, "want a list at %d, have %T", k, v)
			require.Less(t, k, len(l), "index %d of %d", k, len(l))
			v = l[k]
		}
	}
	return v
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
		err := dec.Decode(&m)
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, m)
	}
}

// checkInvariants checks the stream invariants of 000 §5.2 on one
// message's events and that message.complete's content reflects the
// deltas.
func checkInvariants(t *testing.T, evs []canonical.StreamEvent) {
	t.Helper()
	require.NotEmpty(t, evs)
	require.Equal(t, canonical.EventMessageStart, evs[0].Type, "message.start first")
	last := evs[len(evs)-1]
	require.Equal(t, canonical.EventMessageComplete, last.Type, "message.complete last")
	type toolState struct{ starts, ends int }
	tools := map[string]*toolState{}
	text := map[int]string{}
	lastIndex := -1
	for i, ev := range evs {
		if i > 0 {
			require.NotEqual(t, canonical.EventMessageStart, ev.Type, "event %d: a second message.start", i)
		}
		if i < len(evs)-1 {
			require.NotEqual(t, canonical.EventMessageComplete, ev.Type, "event %d: message.complete before the end", i)
		}
		require.Equal(t, evs[0].MessageID, ev.MessageID, "event %d: message id", i)
		switch ev.Type {
		case canonical.EventTextDelta, canonical.EventThinkingDelta, canonical.EventToolUseStart, canonical.EventToolUseInput, canonical.EventToolUseEnd:
			require.GreaterOrEqual(t, ev.Index, lastIndex, "event %d (%s): index went back", i, ev.Type)
			lastIndex = ev.Index
		}
		switch ev.Type {
		case canonical.EventTextDelta, canonical.EventThinkingDelta:
			text[ev.Index] += ev.Text
		case canonical.EventToolUseStart:
			require.NotContains(t, tools, ev.ToolUseID, "event %d: second tool.use_start", i)
			tools[ev.ToolUseID] = &toolState{starts: 1}
		case canonical.EventToolUseInput:
			st := tools[ev.ToolUseID]
			require.NotNil(t, st, "event %d: input before start", i)
			require.Zero(t, st.ends, "event %d: input after end", i)
		case canonical.EventToolUseEnd:
			st := tools[ev.ToolUseID]
			require.NotNil(t, st, "event %d: end before start", i)
			st.ends++
			var obj map[string]any
			require.NoError(t, json.Unmarshal(ev.FinalInput, &obj), "event %d: final_input is not a JSON object: %s", i, ev.FinalInput)
		}
	}
	for id, st := range tools {
		require.Equal(t, 1, st.ends, "tool %s: tool.use_end count", id)
	}
	for i, b := range last.Response.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			require.Equal(t, text[i], b.Text, "content[%d] text vs deltas", i)
		case canonical.ThinkingBlock:
			require.Equal(t, text[i], b.Text, "content[%d] thinking vs deltas", i)
		case canonical.ToolUseBlock:
			require.Contains(t, tools, b.ID, "content[%d] tool without events", i)
		}
	}
}

// slogJSON returns a logger writing JSON lines to w.
func slogJSON(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
