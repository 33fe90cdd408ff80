package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Serve is the adapter side of the protocol for an adapter written in
// Go: it reads metis's lines from in, builds the adapter with newAdapter
// when init arrives, answers every request on out, and returns when in
// ends (after cancelling the calls in flight and closing the adapter).
// The adapter's retry sleeps go to metis as sleep lines and its attempts
// as attempt lines; its tool ids pass through untranslated, since metis
// maps them. info names the program in ready. Lines that break the
// protocol are answered with an error when they have an id and make
// Serve fail otherwise.
func Serve(ctx context.Context, in io.Reader, out io.Writer, info AdapterInfo, newAdapter adapters.Factory) error {
	s := &server{w: NewWriter(out), info: info, newAdapter: newAdapter, calls: map[string]*serverCall{}, byRequest: map[string]string{}, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := s.loop(ctx, NewLineReader(in))
	close(s.done)
	cancel()
	s.wg.Wait()
	if s.a != nil {
		if cerr := s.a.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

type server struct {
	w          *Writer
	info       AdapterInfo
	newAdapter adapters.Factory
	a          adapters.Adapter
	provider   string

	mu        sync.Mutex
	calls     map[string]*serverCall
	byRequest map[string]string // canonical request id → call id
	wg        sync.WaitGroup
	done      chan struct{} // closed when metis's input ends
}

// serverCall is a complete or stream call in flight.
type serverCall struct {
	id     string
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	awaiting bool        // an event or sleep line waits for its answer
	answers  chan string // next, cancel (to an event); slept, cancel (to a sleep)
}

type callKey struct{}

func (s *server) loop(ctx context.Context, r *LineReader) error {
	for {
		line, n, err := r.ReadLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("protocol: reading metis's input: %w", err)
		}
		if err := ValidateToAdapter(line); err != nil {
			m, derr := Decode(line)
			if derr != nil || m.ID == "" {
				return fmt.Errorf("protocol: metis's line %d is invalid: %v", n, err)
			}
			s.reply(m.ID, fmt.Errorf("line %d is invalid against %sv1/to-adapter.schema.json: %v", n, schemaBase, err))
			continue
		}
		m, err := Decode(line)
		if err != nil {
			return fmt.Errorf("protocol: metis's line %d: %w", n, err)
		}
		if err := s.handle(ctx, m); err != nil {
			return err
		}
	}
}

func (s *server) handle(ctx context.Context, m *Message) error {
	if m.Type == TypeInit {
		return s.init(m)
	}
	if s.a == nil {
		s.reply(m.ID, errors.New("the adapter has had no init"))
		return nil
	}
	switch m.Type {
	case TypeCapabilities:
		caps := s.a.Capabilities(m.Model)
		return s.w.Write(&Message{Type: TypeCapabilities, ID: m.ID, Capabilities: &caps})
	case TypeEstimate:
		n := s.a.EstimateInputTokens(m.Request)
		return s.w.Write(&Message{Type: TypeEstimate, ID: m.ID, InputTokens: &n})
	case TypeComplete, TypeStream:
		call := s.start(ctx, m)
		if call == nil {
			s.reply(m.ID, fmt.Errorf("id %q is in use", m.ID))
			return nil
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.end(call, m.Request.RequestID)
			if m.Type == TypeComplete {
				s.complete(call, m.Request)
			} else {
				s.stream(call, m.Request)
			}
		}()
	case TypeNext, TypeSlept, TypeCancel:
		s.answer(m)
	}
	return nil
}

func (s *server) init(m *Message) error {
	if s.a != nil {
		s.reply(m.ID, errors.New("init twice"))
		return nil
	}
	cfg := m.Config.AdaptersConfig()
	cfg.Clock = protocolClock{s}
	cfg.OnAttempt = s.onAttempt
	cfg.Logger = slog.New(&logHandler{w: s.w})
	a, err := s.newAdapter(cfg)
	if err != nil {
		s.reply(m.ID, err)
		return fmt.Errorf("protocol: building the adapter: %w", err)
	}
	s.a, s.provider = a, cfg.Name
	return s.w.Write(&Message{Type: TypeReady, ID: m.ID, Protocol: Version, Adapter: &s.info})
}

// reply answers request id with err.
func (s *server) reply(id string, err error) {
	s.w.Write(&Message{Type: TypeError, ID: id, Error: ErrorFrom(err)}) //nolint:errcheck // metis is gone if this fails
}

func (s *server) start(ctx context.Context, m *Message) *serverCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls[m.ID] != nil {
		return nil
	}
	cctx, cancel := context.WithCancel(context.WithValue(ctx, callKey{}, m.ID))
	call := &serverCall{id: m.ID, ctx: cctx, cancel: cancel, answers: make(chan string, 1)}
	s.calls[m.ID] = call
	s.byRequest[m.Request.RequestID] = m.ID
	return call
}

func (s *server) end(call *serverCall, requestID string) {
	call.cancel()
	s.mu.Lock()
	delete(s.calls, call.id)
	delete(s.byRequest, requestID)
	s.mu.Unlock()
}

func (s *server) call(id string) *serverCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

// answer routes next, slept and cancel to their call.
func (s *server) answer(m *Message) {
	call := s.call(m.ID)
	if call == nil {
		return // a call that has ended; a late cancel is harmless
	}
	if m.Type == TypeCancel {
		call.cancel()
	}
	call.mu.Lock()
	waiting := call.awaiting
	call.awaiting = false
	call.mu.Unlock()
	if waiting {
		call.answers <- m.Type
	}
}

// ask writes m for call and waits for its answer: "" when metis's input
// ended first.
func (s *server) ask(call *serverCall, m *Message) string {
	call.mu.Lock()
	call.awaiting = true
	call.mu.Unlock()
	if err := s.w.Write(m); err != nil {
		return ""
	}
	select {
	case a := <-call.answers:
		return a
	case <-s.done:
		call.cancel()
		return ""
	}
}

// withIdentityIDs returns req with a tool-id map that passes ids through:
// metis sends the provider's ids and maps the ones the adapter reports.
func withIdentityIDs(req *canonical.Request) *canonical.Request {
	r := *req
	r.ToolIDs = identityIDs{}
	return &r
}

type identityIDs struct{}

func (identityIDs) Canonical(_, providerID string) string { return providerID }
func (identityIDs) Wire(_, canonicalID string) string     { return canonicalID }

func (s *server) complete(call *serverCall, req *canonical.Request) {
	resp, err := s.a.Complete(call.ctx, withIdentityIDs(req))
	if err != nil {
		s.reply(call.id, err)
		return
	}
	s.w.Write(&Message{Type: TypeResponse, ID: call.id, Response: resp, RawBody: resp.RawBody}) //nolint:errcheck // metis is gone if this fails
}

func (s *server) stream(call *serverCall, req *canonical.Request) {
	for ev, err := range s.a.Stream(call.ctx, withIdentityIDs(req)) {
		if err != nil {
			s.reply(call.id, err)
			return
		}
		if s.ask(call, &Message{Type: TypeEvent, ID: call.id, Event: &ev}) == "" {
			return
		}
	}
	s.w.Write(&Message{Type: TypeEnd, ID: call.id}) //nolint:errcheck // metis is gone if this fails
}

func (s *server) onAttempt(a adapters.Attempt) {
	s.mu.Lock()
	id := s.byRequest[a.RequestID]
	s.mu.Unlock()
	if id != "" {
		s.w.Write(&Message{Type: TypeAttempt, ID: id, Attempt: AttemptFrom(a)}) //nolint:errcheck // metis is gone if this fails
	}
}

// protocolClock sleeps by asking metis.
type protocolClock struct{ s *server }

func (protocolClock) Now() time.Time { return time.Now() }

func (c protocolClock) Sleep(ctx context.Context, d time.Duration) error {
	id, _ := ctx.Value(callKey{}).(string)
	call := c.s.call(id)
	if call == nil {
		return adapters.RealClock{}.Sleep(ctx, d)
	}
	ms := d.Milliseconds()
	if a := c.s.ask(call, &Message{Type: TypeSleep, ID: id, MS: &ms}); a != TypeSlept {
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.Canceled
	}
	return ctx.Err()
}

// logHandler sends log records to metis as log lines.
type logHandler struct {
	w     *Writer
	attrs []slog.Attr
}

func (h *logHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	attrs := map[string]any{}
	add := func(a slog.Attr) bool {
		v := a.Value.Resolve()
		switch v.Kind() {
		case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool:
			attrs[a.Key] = v.Any()
		default:
			attrs[a.Key] = v.String()
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	m := &Message{Type: TypeLog, Level: levelName(r.Level), Message: r.Message}
	if len(attrs) > 0 {
		m.Attrs = attrs
	}
	if id, ok := ctx.Value(callKey{}).(string); ok {
		m.ID = id
	}
	return h.w.Write(m)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{w: h.w, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *logHandler) WithGroup(string) slog.Handler { return h }

func levelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warn"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}
