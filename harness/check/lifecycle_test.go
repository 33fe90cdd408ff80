package check_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestExpectLifecycleParse: expect.lifecycle is checked when the scenario
// loads; a bad event type or field name is an error at its line.
func TestExpectLifecycleParse(t *testing.T) {
	const head = "id: x/y\ntitle: t\nmodels: [anthropic:claude-sonnet-4-6]\nsteps:\n  - user: hi\n  - call: {}\n    expect:\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown type", "      lifecycle: [{type: llm.call_exploded}]\n", "x.yaml:8:"},
		{"unknown field", "      lifecycle: [{type: llm.call_failed, fields: {colour: red}}]\n", "x.yaml:8:"},
		{"no type", "      lifecycle: [{count: 1}]\n", "x.yaml:8:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenario.Parse("x.yaml", []byte(head+tc.yaml))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want an error at %s", err, tc.want)
			}
		})
	}
	sc, err := scenario.Parse("x.yaml", []byte(head+"      lifecycle: [{type: tool_input_invalid, fields: {tool_name: read_file}, count: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	want := []scenario.ExpectLifecycle{{Type: "tool_input_invalid", Fields: map[string]string{"tool_name": "read_file"}, Count: &one}}
	if diff := cmp.Diff(want, sc.Steps[1].Expect.Lifecycle); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestExpectLifecycleCheck: fields match as text, reason by containment;
// a count is exact, no count means at least one.
func TestExpectLifecycleCheck(t *testing.T) {
	recs := []check.LifecycleRecord{
		{Type: "llm.call_failed", Fields: map[string]string{"attempt": "1", "error_class": "rate_limit", "will_retry": "true"}},
		{Type: "llm.call_failed", Fields: map[string]string{"attempt": "2", "error_class": "rate_limit", "will_retry": "false"}},
		{Type: "tool_input_invalid", Fields: map[string]string{"tool_name": "read_file", "reason": "input#/path: got number, want string"}},
	}
	zero, two := 0, 2
	for _, tc := range []struct {
		name string
		want scenario.ExpectLifecycle
		ok   bool
	}{
		{"two failures", scenario.ExpectLifecycle{Type: "llm.call_failed", Count: &two}, true},
		{"one final failure", scenario.ExpectLifecycle{Type: "llm.call_failed", Fields: map[string]string{"will_retry": "false", "attempt": "2"}}, true},
		{"wrong count", scenario.ExpectLifecycle{Type: "llm.call_failed", Fields: map[string]string{"error_class": "rate_limit"}, Count: &zero}, false},
		{"reason contained", scenario.ExpectLifecycle{Type: "tool_input_invalid", Fields: map[string]string{"reason": "want string"}}, true},
		{"other fields exact", scenario.ExpectLifecycle{Type: "tool_input_invalid", Fields: map[string]string{"tool_name": "read"}}, false},
		{"none of a type", scenario.ExpectLifecycle{Type: "llm.call_completed"}, false},
		{"none expected", scenario.ExpectLifecycle{Type: "llm.call_completed", Count: &zero}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := check.Lifecycle(tc.want, recs)
			if c.OK != tc.ok {
				t.Errorf("OK = %v, want %v (%s)", c.OK, tc.ok, c.Message)
			}
			if !c.OK && !strings.Contains(c.Message, "the step emitted llm.call_failed attempt=1") {
				t.Errorf("message %q does not list what the step emitted", c.Message)
			}
		})
	}
}
