package emulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/metis-llm/metis/canonical"
)

// maxBody caps a request body; larger ones get a 413.
const maxBody = 64 << 20

// Server is a provider emulator listening on loopback. Create it with
// NewServer, or with NewUnstartedServer and then Start; Close it when done.
// It is safe for concurrent use, and is an http.Handler in its own right.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:port" with no trailing
	// slash; set by Start.
	URL string

	cfg config

	mu       sync.Mutex
	queue    []Reply
	requests []Request
	seq      int // last id number handed out

	ln      net.Listener
	srv     *http.Server
	serving sync.WaitGroup
	started bool
	closed  bool
}

// Request is one HTTP request the emulator received, as received.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
}

// NewUnstartedServer returns a Server that is configured but not yet
// listening; call Start.
func NewUnstartedServer(opts ...Option) *Server {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	s := &Server{cfg: cfg}
	s.queue = append(s.queue, cfg.initialReplies...)
	s.cfg.initialReplies = nil
	return s
}

// NewServer returns a started Server. Like httptest.NewServer, it panics
// if it cannot listen; use NewUnstartedServer and Start to get the error.
func NewServer(opts ...Option) *Server {
	s := NewUnstartedServer(opts...)
	if err := s.Start(); err != nil {
		panic(err)
	}
	return s
}

// Start listens on the configured address (WithAddr) and serves in the
// background. It fails if the server was started before or the address
// cannot be listened on.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("emulator: Start called twice")
	}
	if s.closed {
		return errors.New("emulator: Start after Close")
	}
	ln, err := net.Listen("tcp", s.cfg.addr)
	if err != nil {
		return fmt.Errorf("emulator: listen on %s: %w", s.cfg.addr, err)
	}
	s.started = true
	s.ln = ln
	s.URL = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.serving.Add(1)
	go func() {
		defer s.serving.Done()
		s.srv.Serve(ln) //nolint:errcheck // always ErrServerClosed after Close
	}()
	return nil
}

// closeGrace is how long Close waits for requests in flight.
const closeGrace = 5 * time.Second

// Close stops the server: it stops accepting connections, waits up to five
// seconds for requests in flight to finish (streams are short and end
// early when the client goes away), then closes what is left. It may be
// called more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed || !s.started {
		s.closed = true
		s.mu.Unlock()
		return
	}
	s.closed = true
	srv := s.srv
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		srv.Close() //nolint:errcheck // closing connections; nothing to report
	}
	s.serving.Wait()
}

// Enqueue appends replies to the script. Each model request, whatever its
// endpoint, takes the first reply left.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, replies...)
	s.mu.Unlock()
}

// Pending reports how many queued replies are left.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns a copy of every request received so far, in order of
// arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		r.Body = slices.Clone(r.Body)
		out[i] = r
	}
	return out
}

// HealthHeader is set (to "1") on the answer to GET /health, and on no
// other: it tells a client that the server is metis's emulator and not a
// provider or a proxy (conform record --base-url labels such cassettes
// source: emulator and sends a fake key). Cassettes never hold it.
const HealthHeader = "Metis-Emulator"

// ServeHTTP routes one request (see the package doc for the routes).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// No Date header: responses must be byte-stable for cassettes.
	w.Header()["Date"] = nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writePlainError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("emulator: reading request body: %v", err))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body,
	})
	s.mu.Unlock()

	path := r.URL.Path
	switch {
	case path == "/health":
		s.serveGet(w, r, func() {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set(HealthHeader, "1")
			io.WriteString(w, `{"status":"ok"}`) //nolint:errcheck
		})
	case path == "/v1/models", path == "/api/v1/models": // OpenRouter's API lives under /api/v1
		s.serveGet(w, r, func() { s.serveModelList(w, r) })
	case path == "/v1beta/models":
		s.serveGet(w, r, func() { s.serveGeminiModelList(w, r) })
	case path == "/api/tags":
		s.serveGet(w, r, func() { s.serveOllamaTags(w) })
	case path == "/api/ps":
		s.serveGet(w, r, func() { s.serveOllamaPS(w) })
	case path == "/api/version":
		s.serveGet(w, r, func() { serveOllamaVersion(w) })
	case path == "/api/show":
		s.servePost(w, r, func() { s.serveOllamaShow(w, body) })
	case path == "/api/chat":
		s.servePost(w, r, func() { s.serveOllama(w, r, body) })
	case path == "/v1/messages":
		s.servePost(w, r, func() { s.serveAnthropic(w, r, body) })
	case path == "/v1/responses":
		s.servePost(w, r, func() { s.serveResponses(w, r, body) })
	case path == "/v1/chat/completions", path == "/api/v1/chat/completions":
		s.servePost(w, r, func() { s.serveChat(w, r, body) })
	case strings.HasPrefix(path, "/v1beta/models/") && strings.Contains(path, ":"):
		s.servePost(w, r, func() { s.serveGemini(w, r, body) })
	case isCloudPath(path), isCloudPath(r.URL.EscapedPath()): // Vertex AI, Azure OpenAI, Bedrock (cloud.go; an ARN's "/" escaped)
		s.servePost(w, r, func() { s.serveCloud(w, r, body) })
	default:
		if wr := wireAt(path); wr != nil { // a provider's own wire format (wire.go)
			s.servePost(w, r, func() { s.serveWire(w, r, wr, body) })
			return
		}
		writePlainError(w, http.StatusNotFound, fmt.Sprintf("emulator: no route for %s %s", r.Method, path))
	}
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, f func()) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writePlainError(w, http.StatusMethodNotAllowed, fmt.Sprintf("emulator: %s %s: use GET", r.Method, r.URL.Path))
		return
	}
	f()
}

func (s *Server) servePost(w http.ResponseWriter, r *http.Request, f func()) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writePlainError(w, http.StatusMethodNotAllowed, fmt.Sprintf("emulator: %s %s: use POST", r.Method, r.URL.Path))
		return
	}
	f()
}

// writePlainError answers a request that reached no provider endpoint.
func writePlainError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(marshal(map[string]map[string]string{"error": {"type": "emulator_error", "message": msg}})) //nolint:errcheck
}

// turn is everything a renderer needs to write one successful reply.
type turn struct {
	reply   *Reply
	model   string // the model to report
	usage   canonical.TokenUsage
	ids     *idSeq
	created int64
	chunk   int
	stream  bool
	profile Profile
}

// serveModel finishes a model request whose key, headers and body have
// been checked: it picks the reply and answers the failure it scripts or
// calls render with the turn. idCount is how many ids the renderer takes
// for a reply with n tool calls.
func (s *Server) serveModel(w http.ResponseWriter, api API, model string, stream bool, body []byte, idCount func(n int) int, render func(*turn)) {
	if len(s.cfg.models) > 0 && !slices.Contains(s.cfg.models, model) && !(api == Ollama && s.installed(model)) {
		errorFor(api, ErrorModelNotFound, "", model, s.reserve(1).id("req_emu_")).write(w)
		return
	}
	reply, err := s.nextReply(Call{API: api, Model: model, Stream: stream, Body: body})
	if err != nil {
		errorFor(api, errorScript, err.Error(), model, s.reserve(1).id("req_emu_")).write(w)
		return
	}
	if reply.failed() {
		e := scriptedError(api, &reply, model, s.reserve(1).id("req_emu_"))
		for k, vs := range reply.Header {
			if e.header == nil {
				e.header = http.Header{}
			}
			e.header[http.CanonicalHeaderKey(k)] = vs
		}
		e.write(w)
		return
	}
	if err := reply.check(); err != nil {
		errorFor(api, errorScript, "emulator: scripted reply: "+err.Error(), model, s.reserve(1).id("req_emu_")).write(w)
		return
	}
	profile, err := s.profileFor(api, model, reply.Profile)
	if err != nil {
		errorFor(api, errorScript, err.Error(), model, s.reserve(1).id("req_emu_")).write(w)
		return
	}
	for k, vs := range reply.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = vs
	}
	if reply.Model != "" {
		model = reply.Model
	}
	render(&turn{
		reply:   &reply,
		model:   model,
		usage:   reply.usage(body),
		ids:     s.reserve(idCount(len(reply.ToolCalls))),
		created: s.cfg.created.Unix(),
		chunk:   s.cfg.chunkSize,
		stream:  stream,
		profile: profile,
	})
}

// profileFor picks the profile a reply to api is rendered with: the one
// the reply names, else the server's, else the reference; a profile that
// does not shape api gives way to the reference.
func (s *Server) profileFor(api API, model, name string) (Profile, error) {
	var p Profile
	switch {
	case name != "":
		var ok bool
		if p, ok = LookupProfile(name); !ok {
			return p, fmt.Errorf("emulator: scripted reply: unknown profile %q (known: %s)", name, strings.Join(profileNames(), ", "))
		}
	case s.cfg.profile != nil:
		p = clone(*s.cfg.profile)
	default:
		return ReferenceProfile(api, model), nil
	}
	if !p.Applies(api) {
		return ReferenceProfile(api, model), nil
	}
	return p, nil
}

// nextReply asks the Responder, or takes the head of the queue.
func (s *Server) nextReply(c Call) (Reply, error) {
	if f := s.cfg.responder; f != nil {
		r, err := f(c)
		if err != nil {
			return Reply{}, fmt.Errorf("emulator: responder: %w", err)
		}
		return r, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Reply{}, fmt.Errorf("emulator: script exhausted: no reply left for this %s request (model %q); Enqueue more replies or set a Responder", c.API, c.Model)
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	return r, nil
}
