package driver

import (
	"context"
	"log/slog"

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
// block_type, adapter and reason. This is a log line only, never a bus
// or stream event.
func (c *Call) Drop(m *canonical.Message, t canonical.BlockType, reason string) {
	log := c.Log
	if log == nil {
		log = slog.Default()
	}
	session := m.SessionID
	if session == "" && c.Request != nil {
		session = c.Request.SessionID
	}
	log.LogAttrs(context.Background(), slog.LevelWarn, LossyProjectionMsg,
		slog.String("session_id", session),
		slog.String("message_id", m.ID),
		slog.String("block_type", string(t)),
		slog.String("adapter", c.Adapter),
		slog.String("reason", reason),
	)
}
