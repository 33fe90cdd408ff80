package gemini

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

const (
	testModel   = "gemini:gemini-2.5-pro"
	testModel3  = "gemini:gemini-3-pro-preview"
	testAPIKey  = "sk-test-FAKE"
	sseType     = "text/event-stream"
	jsonType    = "application/json; charset=UTF-8"
	fixturesAPI = "gemini"
)

// fixturesDir returns the gemini folder of the shared fixtures, skipping
// the test when it is absent.
func fixturesDir(tb testing.TB) string { return adaptertest.FixturesDir(tb, fixturesAPI) }

// clockStart is the fake clock's Now.
var clockStart = time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)

// checkInvariants checks the stream invariants of 000 §5.2 on one
// message's events (streamcheck), including that message.complete's
// content reflects the deltas.
func checkInvariants(t *testing.T, evs []canonical.StreamEvent) {
	t.Helper()
	require.NotEmpty(t, evs)
	require.Empty(t, streamcheck.Check(evs))
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
	a         *driver.Adapter
	srv       *httptest.Server
	transport *http.Transport
	clock     *adaptertest.Clock
	logs      *logBuffer

	mu       sync.Mutex
	replies  []reply
	requests []recorded
	attempts []adapters.Attempt
}

func newEnv(t *testing.T, replies ...reply) *testEnv {
	t.Helper()
	return newEnvWith(t, nil, replies...)
}

// newEnvWith is newEnv with mod applied to the Config first.
func newEnvWith(t *testing.T, mod func(*adapters.Config), replies ...reply) *testEnv {
	t.Helper()
	e := &testEnv{clock: adaptertest.NewClock(clockStart), logs: &logBuffer{}, replies: replies}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	transport := &http.Transport{}
	e.transport = transport
	t.Cleanup(transport.CloseIdleConnections)
	cfg := adapters.Config{
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
	}
	if mod != nil {
		mod(&cfg)
	}
	a, err := New(cfg)
	require.NoError(t, err)
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
func decodeEvents(t testing.TB, body []byte, ids canonical.ToolIDMap) ([]canonical.StreamEvent, *driver.Assembler, error) {
	t.Helper()
	var evs []canonical.StreamEvent
	a := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
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

// slogJSON returns a logger writing JSON lines to w.
func slogJSON(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
