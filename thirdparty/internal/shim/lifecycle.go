package shim

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Call is one adapter call in progress (Base.Begin): its HTTP attempts,
// and how it ended, for the lifecycle events 000 §9.3 asks of an adapter.
type Call struct {
	id     string
	base   *Base
	ctx    context.Context
	cancel context.CancelFunc
	ev     adapters.Event // the template: adapter, model, ids, stream
	began  time.Time

	mu         sync.Mutex
	n          int // attempts started
	status     int // the last attempt's HTTP status, 0 when none arrived
	lastFailed *canonical.AdapterError
	resp       *canonical.Response
	err        error
	ended      bool
}

// attemptStarted counts an attempt and emits llm.call_started; when the
// attempt before it failed, that failure is reported first as one the
// library retried (llm.call_failed, will_retry true).
func (c *Call) attemptStarted(ctx context.Context) {
	c.mu.Lock()
	prev, prevStatus, prevFailed := c.n, c.status, c.lastFailed
	c.n++
	n := c.n
	c.lastFailed = nil
	c.mu.Unlock()
	if prevFailed != nil {
		e := c.event(adapters.EventCallFailed, prev)
		e.Status, e.Err, e.ErrorClass, e.WillRetry = prevStatus, prevFailed, prevFailed.Class, true
		c.observe(ctx, e)
	}
	c.observe(ctx, c.event(adapters.EventCallStarted, n))
}

// attemptEnded records the attempt's status and failure; it returns the
// attempt's number.
func (c *Call) attemptEnded(status int, failed *canonical.AdapterError) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status, c.lastFailed = status, failed
	return c.n
}

func (c *Call) event(t adapters.EventType, attempt int) adapters.Event {
	e := c.ev
	e.Type, e.Attempt, e.Time = t, attempt, c.base.now()
	e.Latency = e.Time.Sub(c.began)
	return e
}

func (c *Call) observe(ctx context.Context, e adapters.Event) {
	if o := c.base.Cfg.Observer; o != nil {
		o.Observe(ctx, e)
	}
}

// Watch wraps a stream's yield so that the call learns how the stream
// ended: the final response (message.complete) and any error.
func (c *Call) Watch(yield func(canonical.StreamEvent, error) bool) func(canonical.StreamEvent, error) bool {
	return func(ev canonical.StreamEvent, err error) bool {
		c.mu.Lock()
		switch {
		case err != nil:
			c.err = err
		case ev.Type == canonical.EventMessageComplete && ev.Response != nil:
			c.resp = ev.Response
		}
		c.mu.Unlock()
		return yield(ev, err)
	}
}

// Result records a non-streaming call's outcome and returns it.
func (c *Call) Result(resp *canonical.Response, err error) (*canonical.Response, error) {
	c.mu.Lock()
	c.resp, c.err = resp, err
	c.mu.Unlock()
	return resp, err
}

// End ends the call: it releases its cancellation and emits
// llm.call_completed, or llm.call_failed when it ended in an error, with
// stop reason error or cancelled, or with no response at all (the
// consumer stopped reading), as metis's driver does.
func (c *Call) End() {
	c.cancel()
	if c.id != "" {
		c.base.mu.Lock()
		delete(c.base.calls, c.id)
		c.base.mu.Unlock()
	}
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	n, status, resp, err := c.n, c.status, c.resp, c.err
	c.mu.Unlock()
	if c.base.Cfg.Observer == nil {
		return
	}
	e := c.event(adapters.EventCallCompleted, n)
	e.Status = status
	if resp != nil {
		e.Usage, e.StopReason = resp.Usage, resp.StopReason
	}
	var ae *canonical.AdapterError
	switch {
	case err != nil:
		if !errors.As(err, &ae) {
			ae = driver.StreamError(c.ctx, c.base.Cfg.Name, err)
		}
	case resp == nil || resp.StopReason == canonical.StopCancelled:
		ae = canonical.NewError(canonical.ErrCancelled, "", "request cancelled")
		ae.Provider, ae.RequestID = c.base.Cfg.Name, c.id
	case resp.StopReason == canonical.StopError:
		ae = canonical.NewError(canonical.ErrServer, "", "the message ended with stop reason error")
		ae.Provider, ae.RequestID = c.base.Cfg.Name, c.id
	}
	if ae != nil {
		e.Type, e.Err, e.ErrorClass = adapters.EventCallFailed, ae, ae.Class
	}
	// The caller's context may be cancelled by now; the event is still
	// the call's.
	c.observe(context.WithoutCancel(c.ctx), e)
}

// Assembler returns metis's driver.Assembler for the call (yield nil for
// a non-streaming one), checking each tool call's input against the
// request's tools as 001 §5.2.4 asks: an input that does not match is
// kept, marked, logged at WARN and reported as tool_input_invalid.
func (c *Call) Assembler(yield func(canonical.StreamEvent, error) bool, req *canonical.Request, ids canonical.ToolIDMap) *driver.Assembler {
	asm := driver.NewAssembler(yield, c.base.Cfg.Name, req.Model, req.RequestID, ids)
	if len(req.Tools) > 0 {
		asm.CheckToolInputs(req.Tools, func(id, name, reason string) {
			log := c.base.Cfg.Logger
			if log == nil {
				log = slog.Default()
			}
			log.LogAttrs(c.ctx, slog.LevelWarn, driver.ToolInputInvalidMsg,
				slog.String("session_id", req.SessionID), slog.String("request_id", req.RequestID),
				slog.String("tool_use_id", id), slog.String("tool_name", name),
				slog.String("adapter", c.base.Cfg.Name), slog.String("reason", reason))
			e := c.event(adapters.EventToolInputInvalid, 0)
			e.ToolUseID, e.ToolName, e.Reason = id, name, reason
			c.observe(c.ctx, e)
		})
	}
	return asm
}

// Drop records that the shim left a block of type t of message m off the
// wire because the library cannot carry it there (001 §7.3): one WARN
// entry (driver.LossyProjectionMsg) and a lossy_projection event. A block
// of that type that m marks critical (MessageMetadata.CriticalBlocks) is
// not dropped: Drop returns the invalid_request error the call must fail
// with instead.
func (c *Call) Drop(m *canonical.Message, t canonical.BlockType, reason string) error {
	for _, i := range m.Metadata.CriticalBlocks {
		if i >= 0 && i < len(m.Content) && m.Content[i] != nil && m.Content[i].Type() == t {
			return driver.InvalidRequest(canonical.CodeUnsupportedContent,
				"message %s: content[%d] (%s) is marked critical (metadata.critical_blocks) and adapter %q cannot carry it: %s",
				m.ID, i, t, c.base.Cfg.Name, reason)
		}
	}
	c.drop(m, t, reason)
	return nil
}

// drop writes the lossy WARN and emits the lossy_projection event of a
// block of type t of message m.
func (c *Call) drop(m *canonical.Message, t canonical.BlockType, reason string) {
	session := m.SessionID
	if session == "" {
		session = c.ev.SessionID
	}
	e := c.event(adapters.EventLossyDrop, 0)
	e.SessionID, e.MessageID, e.BlockType, e.Reason = session, m.ID, t, reason
	c.observe(c.ctx, e)
	log := c.base.Cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	log.LogAttrs(c.ctx, slog.LevelWarn, driver.LossyProjectionMsg,
		slog.String("session_id", session), slog.String("message_id", m.ID),
		slog.String("block_type", string(t)), slog.String("adapter", c.base.Cfg.Name),
		slog.String("reason", reason))
}

// SkipUnknown returns req without the content blocks of types this
// version of metis does not know (canonical.UnknownBlock), at the top
// level and inside tool results: no library can carry them, so each is
// skipped with the lossy WARN and event (001 §10.3) instead of refusing
// the history. A critical unknown block fails the call with
// invalid_request. req itself is never changed; it is returned as is
// when it holds no unknown block.
func (c *Call) SkipUnknown(req *canonical.Request) (*canonical.Request, error) {
	if !slicesHasUnknown(req.Messages) {
		return req, nil
	}
	out := *req
	out.Messages = make([]canonical.Message, len(req.Messages))
	for i, m := range req.Messages {
		out.Messages[i] = m
		if !hasUnknown(m.Content) {
			continue
		}
		orig := &req.Messages[i]
		content := make(canonical.Blocks, 0, len(m.Content))
		var critical []int
		for j, b := range m.Content {
			isCritical := m.Metadata.Critical(j)
			switch b := b.(type) {
			case canonical.UnknownBlock:
				reason := "block type " + string(b.BlockType) + " is unknown to this version of metis; it is skipped (001 §10.3)"
				if isCritical {
					return nil, driver.InvalidRequest(canonical.CodeUnsupportedContent,
						"message %s: content[%d] (%s) is marked critical (metadata.critical_blocks) and adapter %q cannot carry it: %s",
						m.ID, j, b.BlockType, c.base.Cfg.Name, reason)
				}
				c.drop(orig, b.BlockType, reason)
				continue
			case canonical.ToolResultBlock:
				if hasUnknown(b.Content) {
					if isCritical {
						return nil, driver.InvalidRequest(canonical.CodeUnsupportedContent,
							"message %s: content[%d] (tool_result) is marked critical (metadata.critical_blocks) and its content holds a block of an unknown type", m.ID, j)
					}
					nested := make(canonical.Blocks, 0, len(b.Content))
					for _, nb := range b.Content {
						if u, ok := nb.(canonical.UnknownBlock); ok {
							c.drop(orig, u.BlockType, "block type "+string(u.BlockType)+" is unknown to this version of metis; it is skipped (001 §10.3) (inside a tool_result)")
							continue
						}
						nested = append(nested, nb)
					}
					b.Content = nested
				}
				if isCritical {
					critical = append(critical, len(content))
				}
				content = append(content, b)
				continue
			}
			if isCritical {
				critical = append(critical, len(content))
			}
			content = append(content, b)
		}
		out.Messages[i].Content = content
		out.Messages[i].Metadata.CriticalBlocks = critical
	}
	return &out, nil
}

func slicesHasUnknown(msgs []canonical.Message) bool {
	for i := range msgs {
		if hasUnknown(msgs[i].Content) {
			return true
		}
	}
	return false
}

// hasUnknown reports whether bs holds an unknown block, at the top level
// or inside a tool result.
func hasUnknown(bs canonical.Blocks) bool {
	for _, b := range bs {
		switch b := b.(type) {
		case canonical.UnknownBlock:
			return true
		case canonical.ToolResultBlock:
			if hasUnknown(b.Content) {
				return true
			}
		}
	}
	return false
}
