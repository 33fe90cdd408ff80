// Package sessiontest provides a fake adapters.Adapter for testing code
// that drives a session.Session without a provider: its behaviour is given
// by function fields, and it records every request it receives.
package sessiontest

import (
	"context"
	"encoding/json"
	"iter"
	"sync"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Adapter is a fake adapters.Adapter. Nil function fields have simple
// defaults, documented on each method. The zero value is usable but
// answers every call with an error.
type Adapter struct {
	// Provider is returned by Name.
	Provider string
	// Caps is returned by Capabilities unless CapabilitiesFunc is set.
	Caps             canonical.Capabilities
	CapabilitiesFunc func(model string) canonical.Capabilities
	CompleteFunc     func(ctx context.Context, req *canonical.Request) (*canonical.Response, error)
	StreamFunc       func(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error]
	EstimateFunc     func(req *canonical.Request) int
	CancelFunc       func(requestID string) bool

	mu       sync.Mutex
	requests []*canonical.Request
}

var _ adapters.Adapter = (*Adapter)(nil)

// Name returns a.Provider.
func (a *Adapter) Name() string { return a.Provider }

// Capabilities returns CapabilitiesFunc(model), else Caps.
func (a *Adapter) Capabilities(model string) canonical.Capabilities {
	if a.CapabilitiesFunc != nil {
		return a.CapabilitiesFunc(model)
	}
	return a.Caps
}

// Complete records req and returns CompleteFunc(ctx, req), or an
// invalid_request error when CompleteFunc is nil.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	a.record(req)
	if a.CompleteFunc == nil {
		return nil, a.unset("CompleteFunc")
	}
	return a.CompleteFunc(ctx, req)
}

// Stream records req and returns StreamFunc(ctx, req). When StreamFunc is
// nil it streams CompleteFunc's response through Events, or yields
// CompleteFunc's error alone.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	a.record(req)
	if a.StreamFunc != nil {
		return a.StreamFunc(ctx, req)
	}
	return func(yield func(canonical.StreamEvent, error) bool) {
		if a.CompleteFunc == nil {
			yield(canonical.StreamEvent{}, a.unset("CompleteFunc or StreamFunc"))
			return
		}
		resp, err := a.CompleteFunc(ctx, req)
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		for _, ev := range Events(req.RequestID, resp) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// EstimateInputTokens returns EstimateFunc(req), else a quarter of the
// request's JSON size (about four bytes per token).
func (a *Adapter) EstimateInputTokens(req *canonical.Request) int {
	if a.EstimateFunc != nil {
		return a.EstimateFunc(req)
	}
	data, err := json.Marshal(req)
	if err != nil {
		return 0
	}
	return len(data) / 4
}

// Cancel returns CancelFunc(requestID), else false.
func (a *Adapter) Cancel(requestID string) bool {
	if a.CancelFunc != nil {
		return a.CancelFunc(requestID)
	}
	return false
}

// Close does nothing.
func (a *Adapter) Close() error { return nil }

// Requests returns the requests received so far, in order.
func (a *Adapter) Requests() []*canonical.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*canonical.Request(nil), a.requests...)
}

// LastRequest returns the most recent request, or nil.
func (a *Adapter) LastRequest() *canonical.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.requests) == 0 {
		return nil
	}
	return a.requests[len(a.requests)-1]
}

func (a *Adapter) record(req *canonical.Request) {
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.mu.Unlock()
}

func (a *Adapter) unset(field string) error {
	e := canonical.NewError(canonical.ErrInvalidRequest, "", "sessiontest: %s is not set", field)
	e.Provider = a.Provider
	return e
}

// Events returns the canonical event sequence of a stream that produced
// resp, satisfying 000 §5.2: message.start, one delta per text or
// thinking block (the thinking block's carrying its signature),
// tool.use_start / tool.use_input_delta / tool.use_end per tool use, and
// message.complete with resp. Redacted thinking has no event of its own.
func Events(messageID string, resp *canonical.Response) []canonical.StreamEvent {
	evs := []canonical.StreamEvent{{Type: canonical.EventMessageStart, MessageID: messageID, Model: resp.Model}}
	for i, b := range resp.Content {
		switch t := b.(type) {
		case canonical.TextBlock:
			evs = append(evs, canonical.StreamEvent{Type: canonical.EventTextDelta, MessageID: messageID, Index: i, Text: t.Text})
		case canonical.ThinkingBlock:
			evs = append(evs, canonical.StreamEvent{Type: canonical.EventThinkingDelta, MessageID: messageID, Index: i, Text: t.Text, Signature: t.Signature})
		case canonical.ToolUseBlock:
			evs = append(evs,
				canonical.StreamEvent{Type: canonical.EventToolUseStart, MessageID: messageID, Index: i, ToolUseID: t.ID, ToolName: t.Name},
				canonical.StreamEvent{Type: canonical.EventToolUseInput, MessageID: messageID, Index: i, ToolUseID: t.ID, PartialJSON: string(t.Input)},
				canonical.StreamEvent{Type: canonical.EventToolUseEnd, MessageID: messageID, Index: i, ToolUseID: t.ID, FinalInput: t.Input},
			)
		}
	}
	usage := resp.Usage
	evs = append(evs,
		canonical.StreamEvent{Type: canonical.EventUsageUpdate, MessageID: messageID, Usage: &usage},
		canonical.StreamEvent{Type: canonical.EventMessageComplete, MessageID: messageID, Response: resp},
	)
	return evs
}

// Seq yields events in order, then err if it is not nil.
func Seq(events []canonical.StreamEvent, err error) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		for _, ev := range events {
			if !yield(ev, nil) {
				return
			}
		}
		if err != nil {
			yield(canonical.StreamEvent{}, err)
		}
	}
}

// Resolver returns a model resolver (session.Resolver) that serves each
// model with the adapter whose Provider is the model's provider part
// ("openai" for "openai:gpt-5"), and a model_not_found error otherwise.
func Resolver(fakes ...*Adapter) func(model string) (adapters.Adapter, error) {
	return func(model string) (adapters.Adapter, error) {
		p := canonical.ProviderOf(model)
		for _, a := range fakes {
			if a.Provider == p {
				return a, nil
			}
		}
		return nil, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound, "no adapter for model %q", model)
	}
}
