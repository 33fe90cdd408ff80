package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Serve is the adapter side of the protocol for an adapter written in
// Go: it reads metis's lines from in, builds the adapter with newAdapter
// when init arrives, answers every request on out, and returns when in
// ends (after cancelling the calls in flight and closing the adapter).
// The adapter's retry sleeps go to metis as sleep lines and its attempts
// as attempt lines. info names the program in ready. Lines that break the
// protocol are answered with an error when they have an id and make
// Serve fail otherwise.
//
// Serve speaks the version init proposes, up to Version. In V2 the
// adapter sees the canonical tool ids and the provider's ids for them,
// as in process, and the ids it mints go to metis as tool_ids; its clock
// reads metis's now; its lifecycle events go to metis as lifecycle lines;
// and an adapter that is an adapters.Readier answers probe requests. In
// V1 its tool ids pass through untranslated, since metis maps them, and
// none of the rest crosses.
func Serve(ctx context.Context, in io.Reader, out io.Writer, info AdapterInfo, newAdapter adapters.Factory) error {
	s := &server{w: NewWriter(out), info: info, version: V2, newAdapter: newAdapter, calls: map[string]*serverCall{}, byRequest: map[string]string{}, done: make(chan struct{})}
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
	version    string // the version spoken, once init arrived
	now        atomic.Pointer[time.Time]

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
	awaiting string        // the type of the line that waits for its answer (event, sleep, token), or ""
	answers  chan *Message // next, cancel (to an event); slept, cancel (to a sleep); token, error (to a token)
	ids      *callIDs      // V2 complete and stream calls
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
		version := s.version
		if s.a == nil && isV1Init(line) {
			version = V1
		}
		if err := ValidateToAdapterVersion(version, line); err != nil {
			m, derr := Decode(line)
			if derr != nil || m.ID == "" {
				return fmt.Errorf("protocol: metis's line %d is invalid: %v", n, err)
			}
			s.reply(m.ID, fmt.Errorf("line %d is invalid against %s%s: %v", n, schemaBase, SchemaPath(version, "to-adapter"), err))
			continue
		}
		m, err := Decode(line)
		if err != nil {
			return fmt.Errorf("protocol: metis's line %d: %w", n, err)
		}
		if m.Now != nil {
			s.now.Store(m.Now)
		}
		if err := s.handle(ctx, m); err != nil {
			return err
		}
	}
}

// isV1Init reports whether line is an init proposing version 1.
func isV1Init(line []byte) bool {
	var m struct{ Type, Protocol string }
	return json.Unmarshal(line, &m) == nil && m.Type == TypeInit && m.Protocol == V1
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
	case TypeComplete, TypeStream, TypeProbe:
		requestID := ""
		if m.Request != nil {
			requestID = m.Request.RequestID
		}
		call := s.start(ctx, m.ID, requestID)
		if call == nil {
			s.reply(m.ID, fmt.Errorf("id %q is in use", m.ID))
			return nil
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.end(call, requestID)
			switch m.Type {
			case TypeComplete:
				s.complete(call, s.request(call, m))
			case TypeStream:
				s.stream(call, s.request(call, m))
			default:
				s.probe(call, m.Model)
			}
		}()
	case TypeNext, TypeSlept, TypeCancel, TypeToken, TypeError:
		s.answer(m)
	}
	return nil
}

func (s *server) init(m *Message) error {
	if s.a != nil {
		s.reply(m.ID, errors.New("init twice"))
		return nil
	}
	if m.Protocol == V1 {
		s.version = V1
	}
	s.w.SetVersion(s.version)
	cfg := m.Config.AdaptersConfig()
	cfg.Clock = protocolClock{s}
	cfg.OnAttempt = s.onAttempt
	cfg.Logger = slog.New(&logHandler{w: s.w})
	if s.version != V1 {
		cfg.Observer = adapters.ObserverFunc(s.observe)
		if m.Config.Tokens {
			cfg.Tokens = protocolTokens{s}
		}
	}
	a, err := s.newAdapter(cfg)
	if err != nil {
		s.reply(m.ID, err)
		return fmt.Errorf("protocol: building the adapter: %w", err)
	}
	s.a, s.provider = a, cfg.Name
	_, probe := a.(adapters.Readier)
	ready := &Message{Type: TypeReady, ID: m.ID, Protocol: s.version, Adapter: &s.info}
	if s.version != V1 {
		ready.Probe, ready.Minor = probe, Minor
	}
	return s.w.Write(ready)
}

// reply answers request id with err.
func (s *server) reply(id string, err error) {
	s.w.Write(&Message{Type: TypeError, ID: id, Error: ErrorFrom(err)}) //nolint:errcheck // metis is gone if this fails
}

func (s *server) start(ctx context.Context, id, requestID string) *serverCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls[id] != nil {
		return nil
	}
	cctx, cancel := context.WithCancel(context.WithValue(ctx, callKey{}, id))
	call := &serverCall{id: id, ctx: cctx, cancel: cancel, answers: make(chan *Message, 1)}
	s.calls[id] = call
	if requestID != "" {
		s.byRequest[requestID] = id
	}
	return call
}

func (s *server) end(call *serverCall, requestID string) {
	call.cancel()
	s.mu.Lock()
	delete(s.calls, call.id)
	// A call made again under the same request id (a retry by a wrapper
	// such as package compensate) may have started before this one
	// ended: its attempts and lifecycle events keep their route.
	if requestID != "" && s.byRequest[requestID] == call.id {
		delete(s.byRequest, requestID)
	}
	s.mu.Unlock()
}

func (s *server) call(id string) *serverCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

// answer routes next, slept, cancel, token and error to their call:
// next, slept and cancel answer an event or a sleep; token and error
// answer a token line, which a cancel does not answer (metis answers
// every token line).
func (s *server) answer(m *Message) {
	call := s.call(m.ID)
	if call == nil {
		return // a call that has ended; a late cancel is harmless
	}
	if m.Type == TypeCancel {
		call.cancel()
	}
	tokenAnswer := m.Type == TypeToken || m.Type == TypeError
	call.mu.Lock()
	waiting := call.awaiting != "" && (call.awaiting == TypeToken) == tokenAnswer
	if waiting {
		call.awaiting = ""
	}
	call.mu.Unlock()
	if waiting {
		call.answers <- m
	}
}

// ask writes m for call and waits for its answer: nil when metis's input
// ended first.
func (s *server) ask(call *serverCall, m *Message) *Message {
	call.mu.Lock()
	call.awaiting = m.Type
	call.mu.Unlock()
	if err := s.w.Write(m); err != nil {
		return nil
	}
	select {
	case a := <-call.answers:
		return a
	case <-s.done:
		call.cancel()
		return nil
	}
}

// request returns the request m carries with the tool-id map its
// adapter consults: in V1 one that passes ids through (metis sends the
// provider's ids and maps the ones the adapter reports); in V2 one that
// holds the provider's ids metis sent and records the canonical ids the
// adapter mints, which go to metis with the next line.
func (s *server) request(call *serverCall, m *Message) *canonical.Request {
	r := *m.Request
	if s.version == V1 {
		r.ToolIDs = identityIDs{}
		return &r
	}
	call.ids = newCallIDs(m.ToolIDs)
	r.ToolIDs = call.ids
	return &r
}

type identityIDs struct{}

func (identityIDs) Canonical(_, providerID string) string { return providerID }
func (identityIDs) Wire(_, canonicalID string) string     { return canonicalID }

// callIDs is a V2 call's tool-id map: the provider's ids metis sent for
// the request's canonical ids, and the ones the adapter mints.
type callIDs struct {
	mu       sync.Mutex
	toWire   map[string]string // canonical → provider
	toCanon  map[string]string // provider → canonical
	minted   map[string]string // canonical → provider, not yet sent to metis
	provider string
}

func newCallIDs(ids map[string]string) *callIDs {
	c := &callIDs{toWire: map[string]string{}, toCanon: map[string]string{}}
	for canon, wire := range ids {
		c.toWire[canon], c.toCanon[wire] = wire, canon
	}
	return c
}

func (c *callIDs) Canonical(_, providerID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if canon, ok := c.toCanon[providerID]; ok {
		return canon
	}
	canon := canonical.NewToolUseID()
	c.toWire[canon], c.toCanon[providerID] = providerID, canon
	if c.minted == nil {
		c.minted = map[string]string{}
	}
	c.minted[canon] = providerID
	return canon
}

func (c *callIDs) Wire(_, canonicalID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if wire, ok := c.toWire[canonicalID]; ok {
		return wire
	}
	c.toWire[canonicalID], c.toCanon[canonicalID] = canonicalID, canonicalID
	return canonicalID
}

// take returns the ids minted since the last take (nil for none).
func (c *callIDs) take() map[string]string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.minted
	c.minted = nil
	return m
}

func (s *server) complete(call *serverCall, req *canonical.Request) {
	resp, err := s.a.Complete(call.ctx, req)
	if err != nil {
		s.reply(call.id, err)
		return
	}
	s.w.Write(&Message{Type: TypeResponse, ID: call.id, Response: resp, RawBody: resp.RawBody, ToolIDs: call.ids.take()}) //nolint:errcheck // metis is gone if this fails
}

func (s *server) stream(call *serverCall, req *canonical.Request) {
	// An error is the stream's last element; the iterator is left to end
	// by itself, so that the lifecycle events it emits after it
	// (llm.call_failed) reach metis before the error line ends the call.
	var failed error
	for ev, err := range s.a.Stream(call.ctx, req) {
		if err != nil {
			failed = err
			continue
		}
		if s.ask(call, &Message{Type: TypeEvent, ID: call.id, Event: &ev, ToolIDs: call.ids.take()}) == nil {
			return
		}
	}
	if failed != nil {
		s.reply(call.id, failed)
		return
	}
	s.w.Write(&Message{Type: TypeEnd, ID: call.id}) //nolint:errcheck // metis is gone if this fails
}

// probe answers a probe request with the adapter's readiness probe.
func (s *server) probe(call *serverCall, model string) {
	rd, ok := s.a.(adapters.Readier)
	if !ok {
		s.reply(call.id, errors.New("the adapter has no readiness probe (ready did not declare one)"))
		return
	}
	if err := rd.Ready(call.ctx, model); err != nil {
		s.reply(call.id, err)
		return
	}
	s.w.Write(&Message{Type: TypeProbe, ID: call.id}) //nolint:errcheck // metis is gone if this fails
}

// observe sends a lifecycle event of a call to metis (V2).
func (s *server) observe(ctx context.Context, e adapters.Event) {
	id, _ := ctx.Value(callKey{}).(string)
	if id == "" {
		s.mu.Lock()
		id = s.byRequest[e.RequestID]
		s.mu.Unlock()
	}
	if id != "" {
		s.w.Write(&Message{Type: TypeLifecycle, ID: id, Lifecycle: LifecycleFrom(e)}) //nolint:errcheck // metis is gone if this fails
	}
}

func (s *server) onAttempt(a adapters.Attempt) {
	s.mu.Lock()
	id := s.byRequest[a.RequestID]
	s.mu.Unlock()
	if id != "" {
		s.w.Write(&Message{Type: TypeAttempt, ID: id, Attempt: AttemptFrom(a)}) //nolint:errcheck // metis is gone if this fails
	}
}

// protocolClock sleeps by asking metis, and reads metis's clock: the now
// of the latest line that carried one (V2), else the wall clock.
type protocolClock struct{ s *server }

func (c protocolClock) Now() time.Time {
	if t := c.s.now.Load(); t != nil {
		return *t
	}
	return time.Now()
}

func (c protocolClock) Sleep(ctx context.Context, d time.Duration) error {
	// A call cancelled already does not ask: a cancel that came while it
	// waited for nothing has been taken, and metis has no sleep to answer.
	if err := ctx.Err(); err != nil {
		return err
	}
	id, _ := ctx.Value(callKey{}).(string)
	call := c.s.call(id)
	if call == nil {
		return adapters.RealClock{}.Sleep(ctx, d)
	}
	ms := d.Milliseconds()
	if a := c.s.ask(call, &Message{Type: TypeSleep, ID: id, MS: &ms}); a == nil || a.Type != TypeSlept {
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.Canceled
	}
	return ctx.Err()
}

// protocolTokens is the Config.Tokens of an adapter whose init said
// tokens (v2 minor 1): each token is asked of metis with a token line for
// the call that needs it, and its expiry is on metis's clock, which the
// adapter's Config.Clock reads.
type protocolTokens struct{ s *server }

// Token asks for a token for the only call in flight; an adapter that
// passes its call's context (TokenContext) names the call itself.
func (t protocolTokens) Token() (*oauth2.Token, error) {
	return t.TokenContext(context.Background())
}

// TokenContext asks metis for a token for the call of ctx (the context
// Serve gave the adapter's Complete, Stream or Ready) and waits for the
// answer.
func (t protocolTokens) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	id, _ := ctx.Value(callKey{}).(string)
	call := t.s.call(id)
	if call == nil {
		t.s.mu.Lock()
		if id == "" && len(t.s.calls) == 1 {
			for _, c := range t.s.calls {
				call = c
			}
		}
		n := len(t.s.calls)
		t.s.mu.Unlock()
		if call == nil {
			return nil, fmt.Errorf("protocol: a token asked for outside a call's context, with %d calls in flight: metis's token lines are per call", n)
		}
	}
	a := t.s.ask(call, &Message{Type: TypeToken, ID: call.id})
	switch {
	case a == nil:
		return nil, errors.New("protocol: metis's input ended before it answered a token line")
	case a.Type == TypeError:
		return nil, a.Error.AdapterError(t.s.provider, "")
	}
	return a.Token.OAuth2(), nil
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
