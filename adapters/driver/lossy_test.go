package driver

import (
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func TestDrop(t *testing.T) {
	h := &captureHandler{}
	c := &Call{Adapter: "openai", Log: slog.New(h), Request: &canonical.Request{SessionID: "sess_request"}}
	c.Drop(&canonical.Message{ID: "01HZ001", SessionID: "sess_42"}, canonical.BlockThinking, "Chat Completions has no thinking blocks")

	recs := h.all()
	require.Len(t, recs, 1)
	r := recs[0]
	assert.Equal(t, slog.LevelWarn, r.Level)
	assert.Equal(t, "lossy projection: block dropped", r.Message)
	if diff := cmp.Diff(map[string]string{
		"session_id": "sess_42",
		"message_id": "01HZ001",
		"block_type": "thinking",
		"adapter":    "openai",
		"reason":     "Chat Completions has no thinking blocks",
	}, attrs(r)); diff != "" {
		t.Errorf("WARN attributes (-want +got):\n%s", diff)
	}
}

// TestDropSessionOfRequest: a message without a session id is logged
// under the request's (every provider now does this; Gemini used to log
// the request's even when the message had its own).
func TestDropSessionOfRequest(t *testing.T) {
	h := &captureHandler{}
	c := &Call{Adapter: "gemini", Log: slog.New(h), Request: &canonical.Request{SessionID: "sess_request"}}
	c.Drop(&canonical.Message{ID: "m1"}, canonical.BlockImage, "r")
	recs := h.all()
	require.Len(t, recs, 1)
	assert.Equal(t, "sess_request", attrs(recs[0])["session_id"])
}

func TestDropNilLoggerUsesDefault(t *testing.T) {
	h := &captureHandler{}
	prev := slog.Default()
	slog.SetDefault(slog.New(h))
	t.Cleanup(func() { slog.SetDefault(prev) })

	c := &Call{Adapter: "gemini", Request: &canonical.Request{}}
	c.Drop(&canonical.Message{ID: "m", SessionID: "s"}, canonical.BlockRedactedThinking, "encrypted reasoning from another provider")

	recs := h.all()
	require.Len(t, recs, 1)
	assert.Equal(t, slog.LevelWarn, recs[0].Level)
	assert.Equal(t, "redacted_thinking", attrs(recs[0])["block_type"])
}
