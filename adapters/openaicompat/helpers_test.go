package openaicompat

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// fixture reads one file of a vendored recording; a missing one fails tb.
// Call it from the test goroutine, never from a server handler.
func fixture(tb testing.TB, api, name, file string) []byte {
	tb.Helper()
	return adaptertest.ReadFixture(tb, api, name, file)
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
	return b
}

// recorded is one request a stub received.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// reply is one scripted answer of a stub.
type reply struct {
	status int
	header map[string]string
	body   string
	// hold, when set, makes the handler write body, flush, then wait
	// until the client goes away (a stream cut off mid-way).
	hold bool
}

// stub is a loopback server playing a compatible server: each
// "METHOD /path" route answers from a queue of replies (the last reply
// repeats) and every request is recorded.
type stub struct {
	*httptest.Server
	mu     sync.Mutex
	routes map[string][]reply
	reqs   []recorded
}

func newStub(t *testing.T) *stub {
	s := &stub{routes: map[string][]reply{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// on queues replies for a route such as "POST /v1/chat/completions".
func (s *stub) on(route string, replies ...reply) *stub {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[route] = append(s.routes[route], replies...)
	return s
}

func (s *stub) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	route := r.Method + " " + r.URL.Path
	s.mu.Lock()
	s.reqs = append(s.reqs, recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	q := s.routes[route]
	var rep reply
	ok := len(q) > 0
	if ok {
		rep = q[0]
		if len(q) > 1 {
			s.routes[route] = q[1:]
		}
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"no route `+route+`"}}`, http.StatusNotFound)
		return
	}
	ct := "application/json"
	if strings.HasPrefix(rep.body, "data:") {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, rep.body) //nolint:errcheck // the client may have gone
	if rep.hold {
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// requests returns the recorded requests of a route ("" for all).
func (s *stub) requests(route string) []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []recorded
	for _, r := range s.reqs {
		if route == "" || r.Method+" "+r.Path == route {
			out = append(out, r)
		}
	}
	return out
}

const chatRoute = "POST /v1/chat/completions"

// sse frames chunk payloads as a Chat Completions stream ending [DONE].
func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: ")
		b.WriteString(c)
		b.WriteString("\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// testConfig is the Config the tests start from: a fake key, no retries,
// a recording logger and a clock that never sleeps.
type testEnv struct {
	log   *logRecorder
	clock *adaptertest.Clock
}

func newConfig(kind Kind, baseURL string, env *testEnv) adapters.Config {
	return adapters.Config{
		Name:    string(kind),
		BaseURL: baseURL,
		APIKey:  "sk-test-FAKE",
		Options: map[string]any{"kind": string(kind)},
		Models:  registryModels(),
		Logger:  slog.New(env.log),
		Clock:   env.clock,
	}
}

// registryModels are the registry entries of the personas' models, as
// models.yaml gives them (wire names differ from the canonical ids).
func registryModels() map[string]adapters.ModelConfig {
	out := map[string]adapters.ModelConfig{}
	for _, p := range personas {
		out[p.model] = adapters.ModelConfig{ID: p.model, Adapter: string(p.kind), WireName: p.wire}
	}
	return out
}

// clockStart is the fake clock's Now.
var clockStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newEnv() *testEnv { return &testEnv{log: &logRecorder{}, clock: adaptertest.NewClock(clockStart)} }

// withTools declares tool support for model in cfg (models.yaml's
// capabilities), as a local model must before it may be sent tools.
func withTools(cfg *adapters.Config, model string) {
	m := cfg.Models[model]
	m.Capabilities = json.RawMessage(`{"supports_tools":true,"supports_streaming_tool_calls":true}`)
	cfg.Models[model] = m
}

func mustNew(t *testing.T, cfg adapters.Config) *Adapter {
	t.Helper()
	a, err := New(cfg)
	require.NoError(t, err)
	return a
}

// Canonical message builders.

func userMsg(text string) canonical.Message {
	return canonical.Message{ID: "m_" + text[:min(len(text), 8)], Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func systemMsg(text string) canonical.Message {
	return canonical.Message{Role: canonical.RoleSystem, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

func assistantMsg(provider string, blocks ...canonical.Block) canonical.Message {
	return canonical.Message{Role: canonical.RoleAssistant, Content: blocks, Metadata: canonical.MessageMetadata{Provider: provider}}
}

func toolMsg(toolUseID, text string) canonical.Message {
	return canonical.Message{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{
		ToolUseID: toolUseID, Content: canonical.Blocks{canonical.TextBlock{Text: text}},
	}}}
}

func tool(name, schema string) canonical.ToolDefinition {
	return canonical.ToolDefinition{Name: name, Description: "test tool " + name, InputSchema: json.RawMessage(schema), SideEffects: canonical.SideEffectsRead}
}

var weatherTool = tool("get_weather", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)

func request(model string, msgs ...canonical.Message) *canonical.Request {
	return &canonical.Request{RequestID: canonical.NewRequestID(), Model: model, Messages: msgs, MaxOutputTokens: 256}
}

// completed returns the response of the stream's message.complete.
func completed(tb testing.TB, evs []canonical.StreamEvent) *canonical.Response {
	tb.Helper()
	require.NotEmpty(tb, evs)
	last := evs[len(evs)-1]
	require.Equal(tb, canonical.EventMessageComplete, last.Type)
	return last.Response
}

// decodeJSON parses a JSON object for assertions.
func decodeJSON(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	require.NoError(tb, json.Unmarshal(b, &m), string(b))
	return m
}

// dig walks decoded JSON by object keys and array indexes.
func dig(tb testing.TB, v any, path ...any) any {
	tb.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.Truef(tb, ok, "at %q: %T is not an object", k, v)
			v = m[k]
		case int:
			a, ok := v.([]any)
			require.Truef(tb, ok, "at %d: %T is not an array", k, v)
			require.Greater(tb, len(a), k)
			v = a[k]
		}
	}
	return v
}

// adapterError asserts err is an AdapterError and returns it.
func adapterError(tb testing.TB, err error) *canonical.AdapterError {
	tb.Helper()
	require.Error(tb, err)
	ae, ok := err.(*canonical.AdapterError)
	require.Truef(tb, ok, "error %T is not an *AdapterError: %v", err, err)
	return ae
}

// logRecorder is an slog handler keeping records for assertions.
type logRecorder struct {
	mu      sync.Mutex
	records []map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, m)
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// warnings returns the WARN records whose message contains substr.
func (h *logRecorder) warnings(substr string) []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, r := range h.records {
		if r["level"] == "WARN" && strings.Contains(r["msg"], substr) {
			out = append(out, r)
		}
	}
	return out
}
