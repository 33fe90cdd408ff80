package scenario

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// ParseLevel reads a level name as slog does ("WARN", "info", "ERROR+2").
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("unknown log level %q (want DEBUG, INFO, WARN or ERROR)", s)
	}
	return l, nil
}

// SplitPointer splits a JSON Pointer (RFC 6901) into its unescaped
// reference tokens. "" is the whole document.
func SplitPointer(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q must start with /", ptr)
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(p, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", ptr)
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// HasReload reports whether sc has a reload step.
func (sc *Scenario) HasReload() bool {
	return slices.ContainsFunc(sc.Steps, func(st Step) bool { return st.Kind == StepReload })
}
