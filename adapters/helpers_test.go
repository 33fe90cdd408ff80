package adapters

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fixturesDir returns ../shared/fixtures relative to the module root, or
// skips the test when it is absent.
func fixturesDir(tb testing.TB) string {
	tb.Helper()
	dir := fixturesDirOrEmpty()
	if dir == "" {
		tb.Skip("shared fixtures absent (../shared/fixtures beside the module root)")
	}
	return dir
}

// fixturesDirOrEmpty is fixturesDir for fuzz setup, which must not skip:
// it returns "" when the fixtures are absent.
func fixturesDirOrEmpty() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			fx := filepath.Join(dir, "..", "shared", "fixtures")
			if _, err := os.Stat(fx); err != nil {
				return ""
			}
			return fx
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// captureHandler is a slog.Handler that keeps every record.
type captureHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func (h *captureHandler) all() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]slog.Record(nil), h.records...)
}

// attrs flattens a record's attributes to strings.
func attrs(r slog.Record) map[string]string {
	out := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		out[a.Key] = a.Value.String()
		return true
	})
	return out
}
