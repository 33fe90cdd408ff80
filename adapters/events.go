package adapters

import (
	"context"
	"time"

	"github.com/metis-llm/metis/canonical"
)

// EventType names a lifecycle event. The names are the bus events of the
// specification (000 §5.1, §9.3; 001 §5.2.4, §7.3, §8.4).
type EventType string

// Lifecycle events, in the order a call produces them.
const (
	// EventCallStarted: an HTTP attempt of a call begins. A call that is
	// retried has one per attempt (000 §9.3).
	EventCallStarted EventType = "llm.call_started"
	// EventCallFailed: an attempt, or the call, failed. Err and ErrorClass
	// say how; WillRetry is true when an EventRetryScheduled follows.
	EventCallFailed EventType = "llm.call_failed"
	// EventRetryScheduled: the adapter will retry after Wait.
	EventRetryScheduled EventType = "llm.retry_scheduled"
	// EventCallCompleted: the call's response is complete (once per call),
	// with its Usage and StopReason.
	EventCallCompleted EventType = "llm.call_completed"
	// EventToolInputInvalid: a tool call's input arrived not matching its
	// tool's input_schema (001 §5.2.4). The block is kept, marked with
	// canonical.ToolUseBlock.InputError; Reason says what failed.
	EventToolInputInvalid EventType = "tool_input_invalid"
	// EventLossyDrop: a block the provider cannot represent was dropped
	// on the way to the wire (001 §7.3, §10.3). The WARN log entry is
	// written too.
	EventLossyDrop EventType = "lossy_projection"
	// EventRoutingConstraintFailure: a model swap was refused because the
	// history needs what the target model cannot do (001 §8.4). The
	// session emits it; Model is the refused target.
	EventRoutingConstraintFailure EventType = "routing_constraint_failure"
)

// Event is one lifecycle event. It is a flat struct passed by value, so
// that delivering one allocates nothing; which fields are set depends on
// Type:
//
//	llm.call_started             Attempt
//	llm.call_failed              Attempt, Latency, Status, Err, ErrorClass, WillRetry
//	llm.retry_scheduled          Attempt (the one that failed), Wait, Err, ErrorClass
//	llm.call_completed           Attempt, Latency, Status, Usage, StopReason
//	tool_input_invalid           ToolUseID, ToolName, Reason
//	lossy_projection             MessageID, BlockType, Reason
//	routing_constraint_failure   Model (the target), Reason
//
// Every event has Type, Time, Adapter, Model and, for a call's events,
// RequestID, SessionID and Stream.
type Event struct {
	Type EventType
	Time time.Time
	// Adapter is the adapter's name (Config.Name).
	Adapter   string
	Model     string
	RequestID string
	SessionID string
	// Stream is true for Adapter.Stream calls.
	Stream bool
	// Attempt is the 1-based HTTP attempt number; RetryCount is Attempt-1.
	Attempt int
	// Latency is the time since the call's first attempt began.
	Latency time.Duration
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Usage is the call's token usage (llm.call_completed).
	Usage      canonical.TokenUsage
	StopReason canonical.StopReason
	// Err is the failure; ErrorClass is its class.
	Err        *canonical.AdapterError
	ErrorClass canonical.ErrorClass
	// WillRetry is true on an llm.call_failed the adapter retries.
	WillRetry bool
	// Wait is the backoff before the next attempt (llm.retry_scheduled).
	Wait time.Duration
	// ToolUseID and ToolName name the tool call (tool_input_invalid).
	ToolUseID string
	ToolName  string
	// MessageID and BlockType name the dropped block (lossy_projection).
	MessageID string
	BlockType canonical.BlockType
	// Reason says why, in words.
	Reason string
}

// RetryCount is the number of retries before this event's attempt, the
// retry_count of 000 §9.3.
func (e *Event) RetryCount() int { return max(e.Attempt-1, 0) }

// Observer receives lifecycle events. Observe is called synchronously, on
// the goroutine making the call, in the order the events happen; ctx is
// the call's context (a tracing bridge finds the parent span there). It
// must be quick and must not call back into the adapter. Observers of
// concurrent calls are called concurrently.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(ctx context.Context, e Event)

// Observe calls f(ctx, e).
func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

// Observers returns an Observer that calls each non-nil observer in turn,
// or nil when there is none, so that a Config without observers pays
// nothing.
func Observers(obs ...Observer) Observer {
	var out multiObserver
	for _, o := range obs {
		switch o := o.(type) {
		case nil:
		case multiObserver:
			out = append(out, o...)
		default:
			out = append(out, o)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

type multiObserver []Observer

func (m multiObserver) Observe(ctx context.Context, e Event) {
	for _, o := range m {
		o.Observe(ctx, e)
	}
}
