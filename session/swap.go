package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// SwapError says why a model cannot take over a session (001 §8.4). It
// unwraps to a canonical invalid_request AdapterError with code
// unsupported_content.
type SwapError struct {
	// Model is the refused canonical model id.
	Model string
	// Override is set when the model was a per-call override rather
	// than a Swap.
	Override bool
	// Reasons lists every capability the history needs and the model
	// lacks, one sentence each.
	Reasons []string

	err *canonical.AdapterError
}

// Error reads like "cannot swap to X: session contains images that this
// model can't process".
func (e *SwapError) Error() string {
	if e.Override {
		return "cannot use " + e.Model + " for this call: " + strings.Join(e.Reasons, "; ")
	}
	return "cannot swap to " + e.Model + ": " + strings.Join(e.Reasons, "; ")
}

// Unwrap returns the invalid_request AdapterError.
func (e *SwapError) Unwrap() error { return e.err }

func newSwapError(model string, override bool, reasons []string) *SwapError {
	e := &SwapError{Model: model, Override: override, Reasons: reasons}
	e.err = &canonical.AdapterError{
		Class:   canonical.ErrInvalidRequest,
		Code:    canonical.CodeUnsupportedContent,
		Message: e.Error(),
	}
	return e
}

// Swap makes model the active model after checking the history against
// its declared capabilities; later calls record routing mode manual. On
// refusal it returns a *SwapError and the active model is unchanged.
// Thinking never blocks a swap; thinking the model cannot use is dropped
// from its requests with a WARN entry. With a Store, Swap first saves the
// queued writes, refusing with their *StoreError when it cannot, and a
// swap whose own write fails is undone (the active model is unchanged).
func (s *Session) Swap(model string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ad, err := s.resolve(model)
	if err != nil {
		return fmt.Errorf("cannot swap to %s: %w", model, err)
	}
	dropped, err := s.checkLocked(ad, model, false)
	if err != nil {
		s.refusedLocked(ad, err)
		return err
	}
	if dropped > 0 {
		s.log.Warn("session: thinking in the history will not be sent to the new model",
			"session_id", s.id, "model", model, "adapter", ad.Name(), "blocks", dropped)
	}
	if s.store != nil {
		if err := s.flushLocked(context.Background()); err != nil {
			return fmt.Errorf("cannot swap to %s: %w", model, err)
		}
	}
	prevModel, prevRouting := s.model, s.routing
	s.model = model
	s.routing = routingState{Mode: canonical.RoutingManual, Reason: ReasonSwap}
	if s.store != nil {
		if err := s.store.saveSession(context.Background(), s.rowLocked()); err != nil {
			s.model, s.routing = prevModel, prevRouting
			return fmt.Errorf("cannot swap to %s: store: %w", model, err)
		}
	}
	return nil
}

// refusedLocked emits routing_constraint_failure for a refused model.
func (s *Session) refusedLocked(ad adapters.Adapter, err error) {
	var se *SwapError
	if s.observer == nil || !errors.As(err, &se) {
		return
	}
	s.observer.Observe(context.Background(), adapters.Event{
		Type: adapters.EventRoutingConstraintFailure, Time: s.now(), Adapter: ad.Name(),
		Model: se.Model, SessionID: s.id, Reason: strings.Join(se.Reasons, "; "),
	})
}

// CheckSwap reports whether Swap(model) would succeed, without swapping:
// nil, a *SwapError, or the resolver's error.
func (s *Session) CheckSwap(model string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ad, err := s.resolve(model)
	if err != nil {
		return fmt.Errorf("cannot swap to %s: %w", model, err)
	}
	_, err = s.checkLocked(ad, model, false)
	return err
}

// checkLocked validates the history, as it would be sent to model, against
// ad's capabilities for model. It returns how many thinking blocks the
// policy drops for this target.
func (s *Session) checkLocked(ad adapters.Adapter, model string, override bool) (int, error) {
	caps := ad.Capabilities(model)
	p := s.policy(caps)
	p.Logger = discardLogger
	msgs, st := prepare(s.messages, ad.Name(), p)

	var (
		reasons    []string
		hasImages  bool
		badTypes   []string
		usesTools  = len(s.tools) > 0
		hasSystem  = s.system != ""
		rejectType = func(mt string) {
			if !slices.Contains(badTypes, mt) {
				badTypes = append(badTypes, mt)
			}
		}
	)
	var visit func(bs canonical.Blocks)
	visit = func(bs canonical.Blocks) {
		for _, b := range bs {
			switch t := b.(type) {
			case canonical.ImageBlock:
				hasImages = true
				if caps.SupportsImages && !caps.AcceptsImageType(t.MediaType) {
					rejectType(t.MediaType)
				}
			case canonical.ToolUseBlock:
				usesTools = true
			case canonical.ToolResultBlock:
				usesTools = true
				visit(t.Content)
			}
		}
	}
	for _, m := range msgs {
		if m.Role == canonical.RoleSystem && m.Content.Text() != "" {
			hasSystem = true
		}
		visit(m.Content)
	}

	if hasImages && !caps.SupportsImages {
		reasons = append(reasons, "session contains images that this model can't process")
	}
	if len(badTypes) > 0 {
		slices.Sort(badTypes)
		reasons = append(reasons, fmt.Sprintf("session contains images of type %s, which this model does not accept (it accepts %s)",
			strings.Join(badTypes, ", "), strings.Join(caps.AcceptedImageMediaTypes, ", ")))
	}
	if usesTools && !caps.SupportsTools {
		reasons = append(reasons, "session uses tools and this model can't call tools")
	}
	if hasSystem && !caps.SupportsSystemPrompt {
		reasons = append(reasons, "session has a system prompt and this model does not accept one")
	}
	if caps.MaxContextTokens > 0 {
		req := s.requestLocked(model, msgs, CallOptions{})
		if n := ad.EstimateInputTokens(req); n > caps.MaxContextTokens {
			reasons = append(reasons, fmt.Sprintf("session history is about %d tokens, more than this model's %d-token context window",
				n, caps.MaxContextTokens))
		}
	}
	if len(reasons) > 0 {
		return 0, newSwapError(model, override, reasons)
	}
	return st.droppedThinking, nil
}
