package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/canonical/pricing"
)

// Resolver returns the adapter that serves a canonical model id. The
// adapter registry supplies one; tests supply fakes.
type Resolver func(model string) (adapters.Adapter, error)

// Options configures a new Session. Only Model and Adapters are needed to
// make calls; every other field has a default.
type Options struct {
	// ID is the session id; empty means a new ULID.
	ID string
	// WorkspacePath is recorded with the session (001 §9.1).
	WorkspacePath string
	// Model is the canonical "provider:name" id of the active model.
	Model string
	// Tools are exposed on every request.
	Tools []canonical.ToolDefinition
	// System is the composed system prompt sent as Request.SystemPrompt.
	System string
	// Adapters resolves a model id to its adapter.
	Adapters Resolver
	// Prices computes cost; nil means pricing.Default().
	Prices *pricing.Table
	// Store, when set, receives every appended message.
	Store *Store
	// Logger receives WARN entries for dropped content and unpriced
	// models; nil means slog.Default().
	Logger *slog.Logger
	// Now stamps created_at; nil means time.Now. Timestamps are kept in
	// UTC at microsecond precision and never go backwards in a session.
	Now func() time.Time
	// IDs allocates message ids; nil means canonical.NewMessageID.
	IDs func() string
	// Observer receives the session's lifecycle events: a
	// routing_constraint_failure when Swap or a per-call model is refused
	// (001 §8.4). The adapters' own events go to their Config.Observer.
	Observer adapters.Observer
	// KeepForeignThinkingAsText keeps thinking another provider produced
	// as plain text instead of dropping it (see Policy).
	KeepForeignThinkingAsText bool
	// ReplayFailedTurns sends cancelled and failed assistant turns instead
	// of skipping them (see Policy).
	ReplayFailedTurns bool
}

// Routing reasons recorded on assistant messages.
const (
	ReasonDefault  = "workspace default"
	ReasonSwap     = "manual swap"
	ReasonOverride = "per-call model override"
)

// routingState is the sticky part of the routing decision: how the active
// model was chosen. It persists as sessions.routing_policy_json.
type routingState struct {
	Mode   canonical.RoutingMode `json:"mode"`
	Reason string                `json:"reason"`
}

// Session is one conversation. Its methods are safe for concurrent use,
// but it runs one model call at a time.
type Session struct {
	id        string
	workspace string
	tools     []canonical.ToolDefinition
	system    string
	resolve   Resolver
	prices    *pricing.Table
	store     *Store
	log       *slog.Logger
	observer  adapters.Observer
	now       func() time.Time
	newID     func() string
	keepText  bool
	replay    bool
	createdAt time.Time

	mu       sync.Mutex
	model    string
	routing  routingState
	messages []canonical.Message
	toolIDs  *adapters.ToolIDMap
	inflight *inflight
	pending  []write     // store writes not yet made, in order
	err      *StoreError // why pending is not empty
}

// write is one store write the session owes.
type write func(ctx context.Context) error

// StoreError reports that the session's store refused a write. Nothing is
// dropped: the message (or update) stays in the session's history and the
// write stays queued, to be retried, in order, before the next write —
// the next AddUser, AddSystem, AddToolResult, Call, Stream or Swap — or by
// Flush. While writes are queued, Call and Stream refuse to start (they
// would make a model call whose reply could not be saved); appends still
// go into the history and are queued behind the failed write.
type StoreError struct {
	// SessionID is the session whose writes are queued.
	SessionID string
	// Unsaved is how many writes are queued, the failed one included.
	Unsaved int
	// Err is the store's error.
	Err error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("session %s: store: %v (%d write(s) not saved; retried before the next one, or by Flush)", e.SessionID, e.Err, e.Unsaved)
}

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// inflight is the call currently running.
type inflight struct {
	requestID string
	adapter   adapters.Adapter
}

// ErrBusy is returned by Call and Stream while another call of the same
// session is still running.
var ErrBusy = errors.New("session: a call is already in progress")

// New returns a session configured by opts. When opts.Store is set the
// session row is written at once; a failure is reported by Err, and the
// write is retried before the next one (see StoreError).
func New(opts Options) *Session {
	s := newSession(opts)
	s.createdAt = s.stamp()
	if s.store != nil {
		s.mu.Lock()
		row := s.rowLocked()
		s.persistLocked(func(ctx context.Context) error { return s.store.saveSession(ctx, row) })
		s.mu.Unlock()
	}
	return s
}

// newSession applies the defaults of opts without touching the store.
func newSession(opts Options) *Session {
	s := &Session{
		id:        opts.ID,
		workspace: opts.WorkspacePath,
		tools:     slices.Clone(opts.Tools),
		system:    opts.System,
		resolve:   opts.Adapters,
		prices:    opts.Prices,
		store:     opts.Store,
		log:       opts.Logger,
		observer:  opts.Observer,
		now:       opts.Now,
		newID:     opts.IDs,
		keepText:  opts.KeepForeignThinkingAsText,
		replay:    opts.ReplayFailedTurns,
		model:     opts.Model,
		routing:   routingState{Mode: canonical.RoutingDefault, Reason: ReasonDefault},
		toolIDs:   adapters.NewToolIDMap(),
	}
	if s.newID == nil {
		s.newID = canonical.NewMessageID
	}
	if s.id == "" {
		s.id = canonical.NewMessageID()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.prices == nil {
		s.prices = pricing.Default()
	}
	if s.resolve == nil {
		s.resolve = func(model string) (adapters.Adapter, error) {
			return nil, fmt.Errorf("session: no adapter resolver configured for %q", model)
		}
	}
	return s
}

// ID returns the session id.
func (s *Session) ID() string { return s.id }

// WorkspacePath returns the workspace the session belongs to.
func (s *Session) WorkspacePath() string { return s.workspace }

// CreatedAt returns when the session was created.
func (s *Session) CreatedAt() time.Time { return s.createdAt }

// Model returns the active model's canonical id.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// ToolIDs returns the session's map between canonical and provider tool
// ids. Every request carries it as Request.ToolIDs.
func (s *Session) ToolIDs() *adapters.ToolIDMap { return s.toolIDs }

// Err returns the *StoreError of the last failed write while writes are
// queued, and nil once every write has been saved. While it is non-nil,
// Call and Stream refuse to run.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return nil
	}
	return s.err
}

// Flush retries the queued store writes, in order, and returns nil when
// all of them are saved, or the *StoreError of the first that fails
// again. Without queued writes it does nothing.
func (s *Session) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flushLocked(ctx); err != nil {
		return err
	}
	return nil
}

// Messages returns a copy of the history in order. Content slices are
// copied too; the blocks themselves are values.
func (s *Session) Messages() []canonical.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]canonical.Message, len(s.messages))
	for i, m := range s.messages {
		m.Content = slices.Clone(m.Content)
		out[i] = m
	}
	return out
}

// Cost returns the summed cost of every assistant message so far.
func (s *Session) Cost() decimal.Decimal {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := decimal.Zero
	for _, m := range s.messages {
		if m.Metadata.Usage != nil {
			total = total.Add(m.Metadata.Usage.CostUSD)
		}
	}
	return total
}

// AddUser appends a USER message with blocks and returns it. The content
// is not validated here: adapters reject invalid histories before the
// wire, with an error naming the message. With a Store, the error is a
// *StoreError when the message could not be saved; it is in the history
// all the same, and its write is retried (see StoreError): do not add it
// again.
func (s *Session) AddUser(blocks ...canonical.Block) (canonical.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(s.message(canonical.RoleUser, blocks, canonical.MessageMetadata{}), nil)
}

// AddSystem appends a SYSTEM message holding text (an empty placeholder
// when text is empty) and returns it. Its error is AddUser's.
func (s *Session) AddSystem(text string) (canonical.Message, error) {
	var blocks canonical.Blocks
	if text != "" {
		blocks = canonical.Blocks{canonical.TextBlock{Text: text}}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(s.message(canonical.RoleSystem, blocks, canonical.MessageMetadata{}), nil)
}

// AddToolResult appends the TOOL message answering the tool call
// toolUseID. It fails with an invalid_request error (code
// tool_call_state) when the session has no such tool call or the call
// already has a result (001 §5.2), appending nothing; and with a
// *StoreError when the appended message could not be saved yet (see
// AddUser).
func (s *Session) AddToolResult(toolUseID string, content canonical.Blocks, isError bool) (canonical.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkToolResultLocked(toolUseID); err != nil {
		return canonical.Message{}, err
	}
	if content == nil {
		content = canonical.Blocks{}
	}
	block := canonical.ToolResultBlock{ToolUseID: toolUseID, Content: slices.Clone(content), IsError: isError}
	m := s.message(canonical.RoleTool, canonical.Blocks{block}, canonical.MessageMetadata{ParentToolUseID: toolUseID})
	return s.appendLocked(m, nil)
}

// AddToolResultText is AddToolResult with a single text block.
func (s *Session) AddToolResultText(toolUseID, text string, isError bool) (canonical.Message, error) {
	return s.AddToolResult(toolUseID, canonical.Blocks{canonical.TextBlock{Text: text}}, isError)
}

func (s *Session) checkToolResultLocked(toolUseID string) error {
	found := false
	for _, m := range s.messages {
		switch m.Role {
		case canonical.RoleAssistant:
			for _, tu := range m.Content.ToolUses() {
				if tu.ID == toolUseID {
					found = true
				}
			}
		case canonical.RoleTool:
			for _, b := range m.Content {
				if r, ok := b.(canonical.ToolResultBlock); ok && r.ToolUseID == toolUseID {
					return canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeToolCallState,
						"tool call %s already has a result (message %s)", toolUseID, m.ID)
				}
			}
		}
	}
	if !found {
		return canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeToolCallState,
			"session %s has no tool call %s", s.id, toolUseID)
	}
	return nil
}

// message builds a message of this session with a fresh id.
func (s *Session) message(role canonical.Role, content canonical.Blocks, md canonical.MessageMetadata) canonical.Message {
	if content == nil {
		content = canonical.Blocks{}
	}
	return canonical.Message{
		ID:            s.newID(),
		SessionID:     s.id,
		Role:          role,
		Content:       content,
		Metadata:      md,
		SchemaVersion: canonical.SchemaVersion,
	}
}

// stamp returns the clock's time in UTC at microsecond precision, never
// earlier than the last message's, so that created_at orders the history.
func (s *Session) stamp() time.Time {
	t := s.now().UTC().Truncate(time.Microsecond)
	if n := len(s.messages); n > 0 && t.Before(s.messages[n-1].CreatedAt) {
		t = s.messages[n-1].CreatedAt
	}
	return t
}

// appendLocked stamps m, appends it and persists it with calls. The
// message is in the history whatever the store says; the error is the
// *StoreError when it could not be saved yet.
func (s *Session) appendLocked(m canonical.Message, calls []ToolCall) (canonical.Message, error) {
	m.CreatedAt = s.stamp()
	for i := range calls {
		calls[i].SessionID, calls[i].MessageID, calls[i].CreatedAt = s.id, m.ID, m.CreatedAt
	}
	s.messages = append(s.messages, m)
	var err error
	if s.store != nil {
		stored := m
		err = s.persistLocked(func(ctx context.Context) error { return s.store.AppendMessage(ctx, s.id, stored, calls) })
	}
	out := m
	out.Content = slices.Clone(m.Content)
	return out, err
}

// persistLocked queues w behind any earlier unsaved writes and writes the
// queue. It returns nil, or a *StoreError (as error).
func (s *Session) persistLocked(w write) error {
	s.pending = append(s.pending, w)
	if err := s.flushLocked(context.Background()); err != nil {
		return err
	}
	return nil
}

// flushLocked makes the queued writes in order, stopping at the first
// failure, which it records and returns.
func (s *Session) flushLocked(ctx context.Context) *StoreError {
	for len(s.pending) > 0 {
		if err := s.pending[0](ctx); err != nil {
			s.err = &StoreError{SessionID: s.id, Unsaved: len(s.pending), Err: err}
			s.log.Error("session: store write failed; it is queued and retried before the next write",
				"session_id", s.id, "unsaved", len(s.pending), "error", err)
			return s.err
		}
		s.pending[0] = nil
		s.pending = s.pending[1:]
	}
	s.pending, s.err = nil, nil
	return nil
}

// rowLocked snapshots the sessions row.
func (s *Session) rowLocked() sessionRow {
	updated := s.createdAt
	if n := len(s.messages); n > 0 {
		updated = s.messages[n-1].CreatedAt
	}
	return sessionRow{
		ID:            s.id,
		WorkspacePath: s.workspace,
		ActiveModel:   s.model,
		Routing:       s.routing,
		CreatedAt:     s.createdAt,
		UpdatedAt:     updated,
	}
}
