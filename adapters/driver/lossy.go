package driver

import (
	"context"
	"log/slog"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// LossyProjectionMsg is the message of the WARN entry Call.Drop writes,
// stable so that log pipelines and tests can select on it.
const LossyProjectionMsg = "lossy projection: block dropped"

// Drop records that Encode dropped a block of type t from message m
// because the provider cannot represent it (001 §7.3, 000 §4.4).
// Providers drop such blocks whole, never partially serialized, and call
// Drop once per dropped block. It writes one WARN entry to c.Log with
// the attributes session_id (m's, else the request's), message_id,
// block_type, adapter and reason, and emits a lossy_projection lifecycle
// event (never a stream event).
//
// When m marks a content block of type t critical
// (MessageMetadata.CriticalBlocks), the block is not dropped: the call
// fails with invalid_request before anything is sent, whatever Encode
// returns. Providers drop by type, so a critical block of the type being
// dropped is among those dropped.
func (c *Call) Drop(m *canonical.Message, t canonical.BlockType, reason string) {
	for _, i := range m.Metadata.CriticalBlocks {
		if i >= 0 && i < len(m.Content) && m.Content[i] != nil && m.Content[i].Type() == t {
			if c.critical == nil {
				c.critical = criticalError(c, m, i, reason)
			}
			return
		}
	}
	c.drop(m, t, reason)
}

// criticalError is the invalid_request error of a critical block of
// message m, content index i, that the call cannot carry.
func criticalError(c *Call, m *canonical.Message, i int, reason string) *canonical.AdapterError {
	return InvalidRequest(canonical.CodeUnsupportedContent,
		"message %s: content[%d] (%s) is marked critical (metadata.critical_blocks) and adapter %q cannot carry it: %s",
		m.ID, i, m.Content[i].Type(), c.Adapter, reason)
}

func (c *Call) drop(m *canonical.Message, t canonical.BlockType, reason string) {
	log := c.Log
	if log == nil {
		log = slog.Default()
	}
	session := m.SessionID
	if session == "" && c.Request != nil {
		session = c.Request.SessionID
	}
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if c.observer != nil {
		e := adapters.Event{Type: adapters.EventLossyDrop, Time: time.Now(), Adapter: c.Adapter, SessionID: session,
			MessageID: m.ID, BlockType: t, Reason: reason}
		if c.Request != nil {
			e.Model, e.RequestID, e.Stream = c.Request.Model, c.Request.RequestID, c.Stream
		}
		c.observer.Observe(ctx, e)
	}
	log.LogAttrs(ctx, slog.LevelWarn, LossyProjectionMsg,
		slog.String("session_id", session),
		slog.String("message_id", m.ID),
		slog.String("block_type", string(t)),
		slog.String("adapter", c.Adapter),
		slog.String("reason", reason),
	)
}
