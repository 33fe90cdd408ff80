package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters"
)

// LifecycleTypes are the event types expect.lifecycle may name.
var LifecycleTypes = []adapters.EventType{
	adapters.EventCallStarted, adapters.EventCallFailed, adapters.EventRetryScheduled, adapters.EventCallCompleted,
	adapters.EventToolInputInvalid, adapters.EventLossyDrop, adapters.EventRoutingConstraintFailure,
}

// LifecycleFields are the field names expect.lifecycle may compare.
var LifecycleFields = []string{
	"adapter", "model", "stream", "attempt", "retry_count", "status", "error_class", "error_code", "will_retry",
	"wait", "stop_reason", "input_tokens", "output_tokens", "tool_name", "block_type", "reason",
}

// Check reports what is wrong with the expectation itself.
func (e ExpectLifecycle) Check() error {
	if !slices.Contains(LifecycleTypes, e.Type) {
		return fmt.Errorf("unknown lifecycle event type %q (want one of %s)", e.Type, joinTypes(LifecycleTypes))
	}
	for k := range e.Fields {
		if !slices.Contains(LifecycleFields, k) {
			return fmt.Errorf("unknown lifecycle field %q (want one of %s)", k, strings.Join(LifecycleFields, ", "))
		}
	}
	return nil
}

func joinTypes(ts []adapters.EventType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// String is the expectation as a failure message shows it.
func (e ExpectLifecycle) String() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := []string{string(e.Type)}
	for _, k := range keys {
		parts = append(parts, k+"="+e.Fields[k])
	}
	return strings.Join(parts, " ")
}

// String is the expectation as a failure message shows it.
func (e ExpectLog) String() string {
	var parts []string
	if e.Level != "" {
		parts = append(parts, e.Level)
	}
	if e.Message != "" {
		parts = append(parts, fmt.Sprintf("message containing %q", e.Message))
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+e.Fields[k])
	}
	if len(parts) == 0 {
		return "any record"
	}
	return strings.Join(parts, " ")
}
