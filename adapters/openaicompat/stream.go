package openaicompat

import (
	"iter"

	"github.com/metis-llm/metis/canonical"
)

// finishStream passes the runtime's events through, watching the usage
// and tool-argument events, and applies finalize to the message.complete
// event's response before it is yielded. When finalize finds the response
// malformed, the message completes with stop reason error and the
// invalid_response error follows it (000 §6.5).
func (c *call) finishStream(seq iter.Seq2[canonical.StreamEvent, error]) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		usageSeen, args := false, toolArgs{}
		for ev, err := range seq {
			if err == nil {
				switch ev.Type {
				case canonical.EventUsageUpdate:
					usageSeen = true
				case canonical.EventToolUseInput:
					args.add(ev.ToolUseID, ev.PartialJSON)
				case canonical.EventMessageComplete:
					if ev.Response == nil {
						break
					}
					if ferr := c.finalize(ev.Response, usageSeen, args); ferr != nil {
						ev.Response.StopReason = canonical.StopError
						ferr.RequestID = c.req.RequestID
						if yield(ev, nil) {
							yield(canonical.StreamEvent{}, ferr)
						}
						return
					}
				}
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
