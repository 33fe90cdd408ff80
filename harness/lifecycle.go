package harness

import (
	"context"
	"strconv"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/check"
)

// observe is the run's adapters.Observer: it keeps every event with the
// step that was running.
func (r *run) observe(_ context.Context, e adapters.Event) {
	f := map[string]string{
		"adapter": e.Adapter, "model": e.Model, "stream": strconv.FormatBool(e.Stream),
		"attempt": strconv.Itoa(e.Attempt), "retry_count": strconv.Itoa(e.RetryCount()),
		"status": strconv.Itoa(e.Status), "error_class": string(e.ErrorClass),
		"will_retry": strconv.FormatBool(e.WillRetry), "wait": e.Wait.String(),
		"stop_reason": string(e.StopReason), "input_tokens": strconv.Itoa(e.Usage.InputTokens),
		"output_tokens": strconv.Itoa(e.Usage.OutputTokens), "tool_name": e.ToolName,
		"block_type": string(e.BlockType), "reason": e.Reason,
	}
	if e.Err != nil {
		f["error_code"] = e.Err.Code
	}
	r.mu.Lock()
	r.lifecycle = append(r.lifecycle, check.LifecycleRecord{Step: r.step, Type: e.Type, Fields: f})
	r.mu.Unlock()
}

// lifecycleOf returns the events of step i.
func (r *run) lifecycleOf(i int) []check.LifecycleRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []check.LifecycleRecord
	for _, l := range r.lifecycle {
		if l.Step == i {
			out = append(out, l)
		}
	}
	return out
}
