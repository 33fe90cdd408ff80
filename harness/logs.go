package harness

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/metis-llm/metis/harness/check"
)

// logCapture keeps a run's log records, each with the step that was
// running, and passes them on to the configured logger.
type logCapture struct {
	next slog.Handler

	mu      sync.Mutex
	step    int
	records []check.LogRecord
}

func newLogCapture(next *slog.Logger) *logCapture {
	return &logCapture{next: next.Handler()}
}

// logger returns a logger writing to c.
func (c *logCapture) logger() *slog.Logger { return slog.New(&captureHandler{c: c, next: c.next}) }

func (c *logCapture) setStep(i int) {
	c.mu.Lock()
	c.step = i
	c.mu.Unlock()
}

// forStep returns the records written while step i ran.
func (c *logCapture) forStep(i int) []check.LogRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []check.LogRecord
	for _, r := range c.records {
		if r.Step == i {
			out = append(out, r)
		}
	}
	return out
}

// captureHandler is the slog.Handler of a logCapture: it records every
// record, whatever its level, and forwards those next handles.
type captureHandler struct {
	c      *logCapture
	next   slog.Handler
	attrs  []slog.Attr // with group prefixes applied
	prefix string
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(ctx context.Context, r slog.Record) error {
	rec := check.LogRecord{Level: r.Level, Message: r.Message, Attrs: map[string]string{}}
	for _, a := range h.attrs {
		addAttr(rec.Attrs, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		addAttr(rec.Attrs, h.prefix, a)
		return true
	})
	h.c.mu.Lock()
	rec.Step = h.c.step
	h.c.records = append(h.c.records, rec)
	h.c.mu.Unlock()
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *captureHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := *h
	out.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		out.attrs = append(out.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	out.next = h.next.WithAttrs(attrs)
	return &out
}

func (h *captureHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	out := *h
	out.prefix = h.prefix + name + "."
	out.next = h.next.WithGroup(name)
	return &out
}

// addAttr flattens a into m, groups becoming dotted prefixes.
func addAttr(m map[string]string, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			addAttr(m, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	m[prefix+a.Key] = v.String()
}
