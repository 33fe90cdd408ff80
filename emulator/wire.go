package emulator

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/metis-llm/metis/canonical"
)

// A Wire is a provider wire format the emulator serves besides its
// built-in ones: a provider written outside metis (on adapters/driver)
// brings its own, its emulator profile, and registers it with Register.
// Its requests then get everything the built-in formats get — the key
// check (WithAPIKey, WithoutAuth), the model list (WithModels), scripted
// replies and failures (the queue or a Responder, Requests), deterministic
// ids and chunking — so that its adapter, `record` against the emulator
// and the harness run end to end with no real server. The Wire only says
// how requests and answers look on its wire.
type Wire interface {
	// API names the wire format ("toy"); Call.API carries it to a
	// Responder. It must differ from the built-in APIs'.
	API() API
	// Paths are the request paths it answers, with POST.
	Paths() []string
	// Key returns the API key r carries, "" when it carries none.
	Key(r *http.Request) string
	// Parse reads a request body: the model it asks for and whether it
	// asks for a stream. An error is answered as ErrorInvalidRequest with
	// the error's text.
	Parse(body []byte) (model string, stream bool, err error)
	// Render writes the successful answer to a request (Turn has the
	// reply, what the emulator decided and the means to write it). The
	// reply's StreamError, if any, is the Wire's to honour.
	Render(t *Turn)
	// Error renders a failure of kind: its status and body. message
	// replaces the wire's default message when not empty. Kinds are the
	// Error… constants.
	Error(kind ErrorKind, message string) (status int, body []byte)
}

// A Turn is one successful answer for a Wire to render: the scripted
// reply and what the emulator decided around it.
type Turn struct {
	// Reply is the scripted turn (its failure fields are not set).
	Reply *Reply
	// Model is the model to report: the request's, or Reply.Model.
	Model string
	// Usage is the reply's usage, or the emulator's estimate when the
	// reply has none.
	Usage canonical.TokenUsage
	// Stream reports whether the request asked for a stream.
	Stream bool
	// Created is the creation time to report, in Unix seconds.
	Created int64
	// Request is the request body, as received.
	Request []byte

	t   *turn
	ctx context.Context
	w   http.ResponseWriter
}

// ID returns prefix followed by the answer's next deterministic number,
// zero-padded to four digits ("t_emu_0003"); an answer has one number
// for itself and one per tool call of its reply.
func (t *Turn) ID(prefix string) string { return t.t.ids.id(prefix) }

// Chunks cuts text into the pieces a stream sends it in: WithChunkSize
// bytes each, never inside a UTF-8 sequence.
func (t *Turn) Chunks(text string) []string { return chunks(text, t.t.chunk) }

// JSON answers 200 with body as application/json.
func (t *Turn) JSON(body []byte) {
	t.w.Header().Set("Content-Type", "application/json")
	t.w.WriteHeader(http.StatusOK)
	t.w.Write(body) //nolint:errcheck // the client went away
}

// Events answers 200 with contentType ("text/event-stream" when empty) and
// returns the writer of the stream's server-sent events.
func (t *Turn) Events(contentType string) *Events {
	if contentType == "" {
		contentType = "text/event-stream"
	}
	return &Events{sse: newSSEWriter(t.ctx, t.w, contentType, nil)}
}

// Events writes a server-sent event stream, flushing after each event.
// Once the client has gone, writes do nothing.
type Events struct{ sse *sseWriter }

// Event writes one event: an "event:" line when name is not empty, then
// the data line, then the blank line that ends it.
func (e *Events) Event(name string, data []byte) { e.sse.event(name, data, 0) }

// OK reports whether every write so far reached the client.
func (e *Events) OK() bool { return e.sse.ok() }

// The registered wires, by API and by path.
var wires struct {
	sync.RWMutex
	byAPI  map[API]Wire
	byPath map[string]Wire
}

// builtinAPIs are the APIs the emulator serves itself.
var builtinAPIs = []API{Anthropic, OpenAIResponses, OpenAIChat, Gemini, Ollama}

// Register makes every Server in the process serve w, as database/sql's
// Register makes a driver known: call it once, from the provider's
// emulator package or its tests, before the requests come. It panics when
// w's API or one of its paths is taken, or w has no path.
func Register(w Wire) {
	wires.Lock()
	defer wires.Unlock()
	api := w.API()
	if api == "" || slices.Contains(builtinAPIs, api) || wires.byAPI[api] != nil {
		panic(fmt.Sprintf("emulator: Register: API %q is empty or taken", api))
	}
	if len(w.Paths()) == 0 {
		panic(fmt.Sprintf("emulator: Register: %s has no path", api))
	}
	for _, p := range w.Paths() {
		if !strings.HasPrefix(p, "/") || wires.byPath[p] != nil {
			panic(fmt.Sprintf("emulator: Register: %s: path %q is not absolute or taken", api, p))
		}
	}
	if wires.byAPI == nil {
		wires.byAPI, wires.byPath = map[API]Wire{}, map[string]Wire{}
	}
	wires.byAPI[api] = w
	for _, p := range w.Paths() {
		wires.byPath[p] = w
	}
}

// wireAt returns the registered wire serving path, or nil.
func wireAt(path string) Wire {
	wires.RLock()
	defer wires.RUnlock()
	return wires.byPath[path]
}

// wireOf returns the registered wire of api, or nil.
func wireOf(api API) Wire {
	wires.RLock()
	defer wires.RUnlock()
	return wires.byAPI[api]
}

// serveWire answers a request to a registered wire: the key, the body,
// then the reply as for the built-in APIs.
func (s *Server) serveWire(w http.ResponseWriter, r *http.Request, wr Wire, body []byte) {
	api := wr.API()
	if !s.authorize(w, r, api, "") {
		return
	}
	model, stream, err := wr.Parse(body)
	if err != nil {
		errorFor(api, ErrorInvalidRequest, err.Error(), model, "").write(w)
		return
	}
	s.serveModel(w, api, model, stream, body, func(n int) int { return 1 + n }, func(t *turn) {
		wr.Render(&Turn{Reply: t.reply, Model: t.model, Usage: t.usage, Stream: t.stream, Created: t.created, Request: body, t: t, ctx: r.Context(), w: w})
	})
}

// wireFailure renders a failure of kind on a registered wire.
func wireFailure(wr Wire, kind ErrorKind, message string) apiError {
	switch kind {
	case errorMissingKey:
		kind = ErrorAuth
		if message == "" {
			message = "no API key"
		}
	case errorScript, "":
		kind = ErrorServer
	}
	status, body := wr.Error(kind, message)
	return apiError{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}
}
