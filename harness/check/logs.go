package check

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/metis-llm/metis/harness/scenario"
)

// LogRecord is one log record an adapter or the session wrote during a
// run, with its attributes flattened to text ("group.key" for grouped
// ones).
type LogRecord struct {
	Step    int
	Level   slog.Level
	Message string
	Attrs   map[string]string
}

// String is the record as a failure message quotes it.
func (l LogRecord) String() string {
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

// logMatches reports whether rec satisfies the expectation e.
func logMatches(e scenario.ExpectLog, rec LogRecord) bool {
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
