package adapters

import (
	"context"
	"log/slog"

	"github.com/metis-llm/metis/canonical"
)

// LossyProjectionMsg is the message of the WARN entry DropBlock writes,
// stable so that log pipelines and tests can select on it.
const LossyProjectionMsg = "lossy projection: block dropped"

// DropBlock records that an adapter dropped a content block its provider
// cannot represent (001 §7.3, 000 §4.4). Adapters drop such blocks whole,
// never partially serialized, and call DropBlock once per dropped block.
// It writes one WARN entry with the attributes session_id, message_id,
// block_type, adapter and reason. This is a log line only, never a bus or
// stream event. A nil log means slog.Default().
func DropBlock(log *slog.Logger, adapter, sessionID, messageID string, blockType canonical.BlockType, reason string) {
	if log == nil {
		log = slog.Default()
	}
	log.LogAttrs(context.Background(), slog.LevelWarn, LossyProjectionMsg,
		slog.String("session_id", sessionID),
		slog.String("message_id", messageID),
		slog.String("block_type", string(blockType)),
		slog.String("adapter", adapter),
		slog.String("reason", reason),
	)
}
