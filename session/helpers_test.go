package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session/sessiontest"
)

// logRecorder is a slog.Handler that keeps every record's message, level
// and attributes, for asserting on WARN entries.
type logRecorder struct {
	mu      sync.Mutex
	entries []logEntry
}

type logEntry struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

func newLogRecorder() (*slog.Logger, *logRecorder) {
	h := &logRecorder{}
	return slog.New(h), h
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	e := logEntry{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		e.Attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.entries = append(h.entries, e)
	h.mu.Unlock()
	return nil
}

func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// warnings returns the WARN entries.
func (h *logRecorder) warnings() []logEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logEntry
	for _, e := range h.entries {
		if e.Level == slog.LevelWarn {
			out = append(out, e)
		}
	}
	return out
}

// testClock returns a clock starting at 2026-05-08T12:00:00Z that
// advances one millisecond per reading.
func testClock() func() time.Time {
	var n atomic.Int64
	start := time.Date(2026, 5, 8, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

// seqIDs returns an id allocator giving prefix001, prefix002, ...
func seqIDs(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s%03d", prefix, n.Add(1)) }
}

// allCaps declares every capability, with a 200k context window.
var allCaps = canonical.Capabilities{
	SupportsImages:          true,
	SupportsThinking:        true,
	SupportsTools:           true,
	SupportsSystemPrompt:    true,
	SupportsStreaming:       true,
	MaxContextTokens:        200000,
	MaxOutputTokens:         8192,
	AcceptedImageMediaTypes: []string{"image/png", "image/jpeg"},
}

// textReply returns a CompleteFunc answering every request with text and
// the given token counts.
func textReply(provider, model, text string, in, out int) func(context.Context, *canonical.Request) (*canonical.Response, error) {
	return func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		return &canonical.Response{
			RequestID:  req.RequestID,
			Model:      model,
			Provider:   provider,
			Content:    canonical.Blocks{canonical.TextBlock{Text: text}},
			StopReason: canonical.StopEndTurn,
			Usage:      canonical.TokenUsage{InputTokens: in, OutputTokens: out},
			LatencyMS:  820,
		}, nil
	}
}

// fake returns a fake adapter for provider with all capabilities that
// answers "ok".
func fake(provider string) *sessiontest.Adapter {
	return &sessiontest.Adapter{
		Provider:     provider,
		Caps:         allCaps,
		CompleteFunc: textReply(provider, provider+":model", "ok", 10, 5),
	}
}

// canonJSON returns the canonical JSON of each message.
func canonJSON(t *testing.T, msgs []canonical.Message) []string {
	t.Helper()
	out := make([]string, len(msgs))
	for i, m := range msgs {
		b, err := canonical.CanonicalJSON(m)
		require.NoError(t, err)
		out[i] = string(b)
	}
	return out
}

// jsonEach marshals each message with encoding/json, so that a
// comparison's diff names the message that differs; the slice's own
// encoding is these, comma-separated in brackets (null for a nil slice,
// which stays nil here).
func jsonEach(t *testing.T, msgs []canonical.Message) []string {
	t.Helper()
	if msgs == nil {
		return nil
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = jsonOf(t, m)
	}
	return out
}

// jsonOf marshals v for comparisons in failure messages.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// roles returns the role of each message, for compact assertions.
func roles(msgs []canonical.Message) []canonical.Role {
	out := make([]canonical.Role, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}
