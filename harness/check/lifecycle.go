package check

import (
	"fmt"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

// CheckLifecycle names the expectation on lifecycle events.
const CheckLifecycle = "lifecycle"

// LifecycleRecord is one lifecycle event of a run, its fields as text.
type LifecycleRecord struct {
	Step   int
	Type   adapters.EventType
	Fields map[string]string
}

// lifecycleMatches reports whether rec satisfies e: the type, and every field
// equal as text, except reason, which rec's must contain.
func lifecycleMatches(e scenario.ExpectLifecycle, rec LifecycleRecord) bool {
	if rec.Type != e.Type {
		return false
	}
	for k, v := range e.Fields {
		got := rec.Fields[k]
		if k == "reason" {
			if !strings.Contains(got, v) {
				return false
			}
		} else if got != v {
			return false
		}
	}
	return true
}

// Lifecycle checks one expect.lifecycle entry against the step's
// lifecycle events.
func Lifecycle(want scenario.ExpectLifecycle, recs []LifecycleRecord) Check {
	n := 0
	for _, r := range recs {
		if lifecycleMatches(want, r) {
			n++
		}
	}
	c := countCheck(CheckLifecycle, n, want.Count, "event(s) "+want.String(), "the step emitted "+describeLifecycle(recs))
	c.Oracle = lifecycleOracle(want)
	return c
}

// countCheck is the check of an expectation counting matches: n of what
// matched; want is the exact count required, or nil for at least one;
// seen says what the step produced, for the failure message.
func countCheck(name string, n int, want *int, what, seen string) Check {
	c := Check{Name: name, OK: true}
	switch {
	case want != nil && n != *want:
		c.OK = false
		c.Message = fmt.Sprintf("%d %s, want %d", n, what, *want)
	case want == nil && n == 0:
		c.OK = false
		c.Message = fmt.Sprintf("no %s", what)
	}
	if !c.OK {
		c.Message += "; " + seen
	}
	return c
}

func describeLifecycle(recs []LifecycleRecord) string {
	if len(recs) == 0 {
		return "nothing"
	}
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = string(r.Type)
		if a := r.Fields["attempt"]; a != "0" {
			parts[i] += " attempt=" + a
		}
		if c := r.Fields["error_class"]; c != "" {
			parts[i] += " error_class=" + c
		}
		if t := r.Fields["tool_name"]; t != "" {
			parts[i] += " tool_name=" + t
		}
		if b := r.Fields["block_type"]; b != "" {
			parts[i] += " block_type=" + b
		}
	}
	return strings.Join(parts, ", ")
}
