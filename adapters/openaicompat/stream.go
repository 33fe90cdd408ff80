package openaicompat

import (
	"errors"
	"io"
	"iter"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// decodeStream decodes a streamed body with the dialect. A finish reason
// the dialect does not know ends the message with stop reason error and
// the reason kept verbatim (004 §8.2), instead of failing the call.
func (c *call) decodeStream(body io.Reader, a *adapters.Assembler) error {
	err := c.d.DecodeStream(body, a)
	if reason, ok := unknownFinishReason(err); ok {
		c.warnUnknownFinish(reason)
		a.Finish(canonical.StopError, reason)
		return nil
	}
	return err
}

// unknownFinishReason reports whether err is the dialect's unknown
// finish_reason error, and the reason it names.
// TODO(openai): an UnknownFinishReason knob on ChatDialect would map the
// reason without failing, keeping the usage chunk that follows it.
func unknownFinishReason(err error) (string, bool) {
	var ae *canonical.AdapterError
	if !errors.As(err, &ae) || ae.Code != canonical.CodeUnknownFinishReason {
		return "", false
	}
	if _, q, ok := strings.Cut(ae.Message, "finish_reason "); ok {
		if r, err := strconv.Unquote(q); err == nil {
			return r, true
		}
	}
	return "", true
}

// finishStream passes the runtime's events through, watching the usage
// and tool-argument events, and applies finalize to the message.complete
// event's response before it is yielded. When finalize finds the response
// malformed, the message completes with stop reason error and the
// invalid_response error follows it (000 §6.5).
func (c *call) finishStream(seq iter.Seq2[canonical.StreamEvent, error]) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		var (
			usageSeen bool
			w         wireExtras
		)
		for ev, err := range seq {
			if err == nil {
				switch ev.Type {
				case canonical.EventUsageUpdate:
					usageSeen = true
				case canonical.EventToolUseInput:
					w.appendArgs(ev.ToolUseID, ev.PartialJSON)
				case canonical.EventMessageComplete:
					if ev.Response == nil {
						break
					}
					if ferr := c.finalize(ev.Response, usageSeen, &w); ferr != nil {
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
