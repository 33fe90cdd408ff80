package adapters

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func TestDropBlock(t *testing.T) {
	h := &captureHandler{}
	DropBlock(slog.New(h), "openai", "sess_42", "01HZ001", canonical.BlockThinking, "Chat Completions has no thinking blocks")

	recs := h.all()
	require.Len(t, recs, 1)
	r := recs[0]
	assert.Equal(t, slog.LevelWarn, r.Level)
	assert.Equal(t, "lossy projection: block dropped", r.Message)
	assert.Equal(t, map[string]string{
		"session_id": "sess_42",
		"message_id": "01HZ001",
		"block_type": "thinking",
		"adapter":    "openai",
		"reason":     "Chat Completions has no thinking blocks",
	}, attrs(r))
}

func TestDropBlockNilLoggerUsesDefault(t *testing.T) {
	h := &captureHandler{}
	prev := slog.Default()
	slog.SetDefault(slog.New(h))
	t.Cleanup(func() { slog.SetDefault(prev) })

	DropBlock(nil, "gemini", "s", "m", canonical.BlockRedactedThinking, "encrypted reasoning from another provider")

	recs := h.all()
	require.Len(t, recs, 1)
	assert.Equal(t, slog.LevelWarn, recs[0].Level)
	assert.Equal(t, "redacted_thinking", attrs(recs[0])["block_type"])
}
