package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// CallOptions are the per-call knobs of Call and Stream.
type CallOptions struct {
	// Model overrides the active model for this call only; the message
	// records routing mode override. The history is checked against the
	// model's capabilities as for Swap.
	Model string
	// MaxOutputTokens caps the reply; zero leaves the adapter's default.
	MaxOutputTokens int
	// Temperature is sent when set.
	Temperature *float64
	// StopSequences end generation when the model produces one of them.
	StopSequences []string
	// ToolChoice constrains tool use; nil leaves it to the model.
	ToolChoice *canonical.ToolChoice
	// Thinking asks for reasoning where the model supports it.
	Thinking *canonical.ThinkingConfig
	// OutputSchema asks for structured output matching this JSON Schema.
	OutputSchema json.RawMessage
	// RequestID identifies the call; empty means canonical.NewRequestID().
	RequestID string
	// Tools are offered on this call after the session's Options.Tools
	// (Run offers its tools' definitions here). A name used twice is an
	// invalid_request error before the wire.
	Tools []canonical.ToolDefinition
}

// call is one model call between begin and end.
type call struct {
	adapter adapters.Adapter
	req     *canonical.Request
	model   string
	routing routingState
}

var discardLogger = slog.New(slog.DiscardHandler)

// Call makes a non-streaming call and appends the ASSISTANT message built
// from the response. A response that stopped on cancellation gives a
// message with status cancelled; an adapter error that comes with a
// response gives one with status error, returned with the error. An
// error without a response appends nothing.
func (s *Session) Call(ctx context.Context, opts CallOptions) (*canonical.Message, error) {
	c, err := s.begin(opts, false)
	if err != nil {
		return nil, err
	}
	defer s.end()
	resp, err := c.adapter.Complete(ctx, c.req)
	if resp == nil {
		if err == nil {
			err = invalidResponse(c, "adapter returned neither a response nor an error")
		}
		return nil, err
	}
	status := statusOf(resp.StopReason)
	if err != nil {
		status = canonical.StatusError
	}
	m, perr := s.finish(c, resp, status)
	if err != nil {
		return &m, err
	}
	return &m, perr
}

// Stream makes a streaming call, passing the adapter's events through.
// When message.complete arrives the ASSISTANT message is appended before
// the event is yielded, so the history already holds it; its status
// follows the stop reason (cancelled, error, else complete). An error
// after message.complete marks that message failed and is yielded last.
// An error before it appends nothing.
//
// A caller that stops iterating before message.complete cancels the
// call, as Cancel does: the content of the events it was given is
// appended as a message with status cancelled (stop reason cancelled,
// unfinished tool inputs as 000 §5.3 says), so the history keeps what the
// caller saw. A *StoreError saving the message is then not reported (the
// loop is gone); Err has it.
func (s *Session) Stream(ctx context.Context, opts CallOptions) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		c, err := s.begin(opts, true)
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		defer s.end()
		var (
			appended string // id of the appended message
			perr     error
			seen     partial // the turn so far, until message.complete
			inBody   bool    // the caller's loop body is running
		)
		defer func() {
			// The caller's loop body panicked: the panic goes on to the
			// caller as it is, and the turn so far is kept as a break
			// keeps it.
			if inBody && appended == "" {
				s.finish(c, s.kept(c, &seen), canonical.StatusCancelled) //nolint:errcheck // kept in Err
			}
		}()
		for ev, err := range c.adapter.Stream(ctx, c.req) {
			if err != nil {
				if appended != "" {
					if e := s.markFailed(appended); e != nil {
						err = errors.Join(err, e)
					}
				}
				yield(ev, err)
				return
			}
			if ev.Type == canonical.EventMessageComplete && appended == "" {
				if ev.Response == nil {
					yield(ev, invalidResponse(c, "message.complete carries no response"))
					return
				}
				var m canonical.Message
				m, perr = s.finish(c, ev.Response, statusOf(ev.Response.StopReason))
				appended = m.ID
			}
			if appended == "" {
				seen.add(ev)
			}
			inBody = true
			more := yield(ev, nil)
			inBody = false
			if !more {
				if appended == "" {
					s.finish(c, s.kept(c, &seen), canonical.StatusCancelled) //nolint:errcheck // kept in Err
				}
				return
			}
		}
		switch {
		case appended == "":
			yield(canonical.StreamEvent{}, invalidResponse(c, "stream ended without message.complete"))
		case perr != nil:
			yield(canonical.StreamEvent{}, perr)
		}
	}
}

// Cancel aborts the call in flight, if any, through its adapter. It
// reports whether a call was found. Cancelling the call's context works
// too.
func (s *Session) Cancel() bool {
	s.mu.Lock()
	f := s.inflight
	s.mu.Unlock()
	if f == nil {
		return false
	}
	return f.adapter.Cancel(f.requestID)
}

// begin resolves the model, builds the request and marks the call in
// flight.
func (s *Session) begin(opts CallOptions, stream bool) (*call, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight != nil {
		return nil, ErrBusy
	}
	if err := s.flushLocked(context.Background()); err != nil {
		return nil, err
	}
	c := &call{model: s.model, routing: s.routing}
	override := opts.Model != ""
	if override {
		c.model = opts.Model
		c.routing = routingState{Mode: canonical.RoutingOverride, Reason: ReasonOverride}
	}
	if c.model == "" {
		return nil, canonical.NewError(canonical.ErrInvalidRequest, "", "session %s has no model", s.id)
	}
	ad, err := s.resolve(c.model)
	if err != nil {
		return nil, fmt.Errorf("session %s: model %s: %w", s.id, c.model, err)
	}
	if override {
		if _, err := s.checkLocked(ad, c.model, true); err != nil {
			s.refusedLocked(ad, err)
			return nil, err
		}
	}
	c.adapter = ad
	msgs := PrepareHistory(s.messages, ad.Name(), s.policy(ad.Capabilities(c.model)))
	c.req = s.requestLocked(c.model, msgs, opts)
	c.req.Stream = stream
	if c.req.RequestID == "" {
		c.req.RequestID = canonical.NewRequestID()
	}
	s.inflight = &inflight{requestID: c.req.RequestID, adapter: ad}
	return c, nil
}

func (s *Session) end() {
	s.mu.Lock()
	s.inflight = nil
	s.mu.Unlock()
}

// policy is the session's cross-provider policy for a target with caps.
func (s *Session) policy(caps canonical.Capabilities) Policy {
	return Policy{
		KeepForeignThinkingAsText: s.keepText,
		ReplayFailedTurns:         s.replay,
		TargetLacksThinking:       !caps.SupportsThinking,
		Logger:                    s.log,
	}
}

// requestLocked builds the request for model over the prepared msgs.
func (s *Session) requestLocked(model string, msgs []canonical.Message, opts CallOptions) *canonical.Request {
	req := &canonical.Request{
		RequestID:       opts.RequestID,
		SessionID:       s.id,
		Messages:        msgs,
		ToolChoice:      opts.ToolChoice,
		SystemPrompt:    s.system,
		Model:           model,
		MaxOutputTokens: opts.MaxOutputTokens,
		StopSequences:   opts.StopSequences,
		Temperature:     opts.Temperature,
		OutputSchema:    opts.OutputSchema,
		Thinking:        opts.Thinking,
		ToolIDs:         s.toolIDs,
	}
	if len(s.tools)+len(opts.Tools) > 0 {
		req.Tools = slices.Concat(s.tools, opts.Tools)
	}
	return req
}

// kept is the turn the caller saw of a stream it stopped reading. When
// no usage had reached it, the counts are estimated (000 §7.2) and
// marked so, with a WARN: the provider bills the input of an abandoned
// call, so a zero would be a plausible-looking wrong cost.
func (s *Session) kept(c *call, seen *partial) *canonical.Response {
	resp := seen.response()
	if seen.sawUsage {
		return resp
	}
	resp.Usage = canonical.TokenUsage{
		InputTokens:  c.adapter.EstimateInputTokens(c.req),
		OutputTokens: adapters.EstimateOutputTokens(resp.Content),
		Estimated:    true,
	}
	s.log.Warn("session: usage estimated: the caller stopped reading before the provider reported usage",
		"session_id", s.id, "request_id", c.req.RequestID, "model", c.model,
		"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens)
	return resp
}

// finish assembles the ASSISTANT message from resp and appends it. The
// error is the *StoreError when it could not be saved yet.
func (s *Session) finish(c *call, resp *canonical.Response, status canonical.MessageStatus) (canonical.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	md := canonical.MessageMetadata{
		Model:       resp.Model,
		ServedModel: resp.ServedModel,
		Provider:    resp.Provider,
		Routing: &canonical.RoutingDecisionRecord{
			Mode:        c.routing.Mode,
			ChosenModel: c.model,
			Reason:      c.routing.Reason,
		},
		Status: status,
	}
	if md.Model == "" {
		md.Model = c.model
	}
	if md.Provider == "" {
		md.Provider = c.adapter.Name()
	}
	md.Usage = s.usage(md.Model, c.model, resp)
	if len(resp.ProviderRaw) > 0 {
		md.ProviderRaw = map[string]json.RawMessage{md.Provider: slices.Clone(resp.ProviderRaw)}
	}
	m := s.message(canonical.RoleAssistant, slices.Clone(resp.Content), md)
	return s.appendLocked(m, s.toolCallsLocked(m))
}

// usage turns the adapter's token counts into Usage with the cost of the
// model that served the call (or, failing a price for it, of the model
// routing chose). A model without a price gets cost 0 and an empty
// pricing_version, with a WARN entry.
func (s *Session) usage(served, chosen string, resp *canonical.Response) *canonical.Usage {
	u := &canonical.Usage{
		InputTokens:              resp.Usage.InputTokens,
		OutputTokens:             resp.Usage.OutputTokens,
		CachedInputTokens:        resp.Usage.CachedInputTokens,
		CacheCreationInputTokens: resp.Usage.CacheCreationInputTokens,
		ReasoningTokens:          resp.Usage.ReasoningTokens,
		LatencyMS:                resp.LatencyMS,
		Estimated:                resp.Usage.Estimated,
	}
	cost, err := s.prices.Cost(served, resp.Usage)
	if err != nil && chosen != served {
		cost, err = s.prices.Cost(chosen, resp.Usage)
	}
	if err != nil {
		s.log.Warn("session: no price for model; cost recorded as 0", "session_id", s.id, "model", served, "error", err)
		return u
	}
	u.CostUSD = cost
	u.PricingVersion = s.prices.Version
	return u
}

// toolCallsLocked returns the tool_calls rows for the tool uses of an
// assistant message: pending, or cancelled when the message did not
// complete (such calls are never run).
func (s *Session) toolCallsLocked(m canonical.Message) []ToolCall {
	uses := m.Content.ToolUses()
	if len(uses) == 0 {
		return nil
	}
	status := ToolCallPending
	if m.Metadata.EffectiveStatus() != canonical.StatusComplete {
		status = ToolCallCancelled
	}
	pairs := s.toolIDs.Pairs()
	calls := make([]ToolCall, 0, len(uses))
	for _, tu := range uses {
		if s.hasToolUseLocked(tu.ID) {
			s.log.Warn("session: tool id already used in this session", "session_id", s.id, "message_id", m.ID, "tool_use_id", tu.ID)
		}
		tc := ToolCall{ID: tu.ID, Name: tu.Name, Status: status, Provider: m.Metadata.Provider}
		for _, p := range pairs {
			if p.Canonical == tu.ID && p.Provider == tc.Provider {
				tc.ProviderID = p.ProviderID
				break
			}
		}
		calls = append(calls, tc)
	}
	return calls
}

func (s *Session) hasToolUseLocked(id string) bool {
	for _, m := range s.messages {
		if m.Role != canonical.RoleAssistant {
			continue
		}
		for _, tu := range m.Content.ToolUses() {
			if tu.ID == id {
				return true
			}
		}
	}
	return false
}

// markFailed sets the status of message id to error, for an error that
// followed its message.complete. The error is the *StoreError when the
// update could not be saved yet.
func (s *Session) markFailed(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.messages {
		m := &s.messages[i]
		if m.ID != id || m.Metadata.Status == canonical.StatusError {
			continue
		}
		m.Metadata.Status = canonical.StatusError
		if s.store != nil {
			mm := *m
			return s.persistLocked(func(ctx context.Context) error { return s.store.updateMessage(ctx, mm) })
		}
	}
	return nil
}

func statusOf(stop canonical.StopReason) canonical.MessageStatus {
	switch stop {
	case canonical.StopCancelled:
		return canonical.StatusCancelled
	case canonical.StopError:
		return canonical.StatusError
	}
	return canonical.StatusComplete
}

func invalidResponse(c *call, msg string) *canonical.AdapterError {
	e := canonical.NewError(canonical.ErrServer, canonical.CodeInvalidResponse, "%s", msg)
	e.Provider, e.RequestID = c.adapter.Name(), c.req.RequestID
	return e
}
