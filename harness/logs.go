package harness

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/metis-llm/metis/harness/scenario"
)

// logRecord is one log record an adapter or the session wrote during a
// run, with its attributes flattened to text ("group.key" for grouped
// ones).
type logRecord struct {
	Step    int
	Level   slog.Level
	Message string
	Attrs   map[string]string
}

func (l logRecord) String() string {
	keys := make([]string, 0, len(l.Attrs))
	for k := range l.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %q", l.Level, l.Message)
	for _, k := range keys {
		fmt.Fprintf(&sb, " %s=%s", k, l.Attrs[k])
	}
	return sb.String()
}

// logCapture keeps a run's log records, each with the step that was
// running, and passes them on to the configured logger.
type logCapture struct {
	next slog.Handler

	mu      sync.Mutex
	step    int
	records []logRecord
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
func (c *logCapture) forStep(i int) []logRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []logRecord
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
	rec := logRecord{Level: r.Level, Message: r.Message, Attrs: map[string]string{}}
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

// logMatches reports whether rec satisfies the expectation e.
func logMatches(e scenario.ExpectLog, rec logRecord) bool {
	if e.Level != "" {
		if l, err := scenario.ParseLevel(e.Level); err != nil || l != rec.Level {
			return false
		}
	}
	if e.Message != "" && !strings.Contains(rec.Message, e.Message) {
		return false
	}
	for k, v := range e.Fields {
		if got, ok := rec.Attrs[k]; !ok || got != v {
			return false
		}
	}
	return true
}
