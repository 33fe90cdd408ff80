package anthropic

import (
	"bytes"
	"encoding/json"
	"io"
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
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

const testModel = "anthropic:claude-sonnet-4-6"

func readFixture(t testing.TB, name, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(t), name, file))
	require.NoError(t, err)
	return b
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
	a      *driver.Adapter
	srv    *httptest.Server
	clock  *adaptertest.Clock
	logs   *logBuffer
	mu     sync.Mutex
	bodies [][]byte
	hdrs   []http.Header
}

// newEnv starts handler behind an adapter; the server records request
// bodies and headers before handler runs.
func newEnv(t testing.TB, handler http.HandlerFunc, mods ...func(*adapters.Config)) *testEnv {
	t.Helper()
	env := &testEnv{clock: adaptertest.NewClock(clockStart), logs: &logBuffer{}}
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

func userText(text string) canonical.Message {
	return canonical.Message{ID: canonical.NewMessageID(), Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func textRequest(text string) *canonical.Request {
	return &canonical.Request{Model: testModel, Messages: []canonical.Message{userText(text)}}
}

// fixturesDir returns the anthropic folder of the shared fixtures,
// skipping the test when it is absent.
func fixturesDir(tb testing.TB) string { return adaptertest.FixturesDir(tb, "anthropic") }

// clockStart is the fake clock's Now.
var clockStart = time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)

// checkInvariants asserts the stream invariants of 000 §5.2
// (streamcheck), that tool ids are canonical and input deltas non-empty,
// and returns message.complete's response.
func checkInvariants(t testing.TB, evs []canonical.StreamEvent) *canonical.Response {
	t.Helper()
	require.NotEmpty(t, evs)
	require.Empty(t, streamcheck.Check(evs))
	for i, ev := range evs {
		switch ev.Type {
		case canonical.EventToolUseStart:
			require.True(t, canonical.IsToolUseID(ev.ToolUseID), "event %d: tool id %q", i, ev.ToolUseID)
		case canonical.EventToolUseInput:
			require.NotEmpty(t, ev.PartialJSON, "event %d: empty input delta", i)
		}
	}
	return evs[len(evs)-1].Response
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
