package adapters

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCompensationsParse: a model's compensations: block is read field by
// field, and the registry hands out copies.
func TestCompensationsParse(t *testing.T) {
	const file = `adapters:
  openai: {type: openai}
models:
  openai:gpt-5:
    tier: balanced
    compensations:
      prompt_addendum: "Call tools; do not describe them."
      max_tools: 20
      core_tools: [read_file, write_file]
      force_tool_first_turn: true
      tier_stand_in: true
      retry: {max_retries: 5, base_delay: 2s, max_delay: 1m, on: [rate_limit, tool_call_state]}
  openai:gpt-5-mini: {tier: fast}
`
	reg, err := LoadRegistry(strings.NewReader(file), "models.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.Resolve("openai:gpt-5")
	if err != nil {
		t.Fatal(err)
	}
	want := &Compensations{
		PromptAddendum: "Call tools; do not describe them.", MaxTools: 20, CoreTools: []string{"read_file", "write_file"},
		ForceToolFirstTurn: true, TierStandIn: true,
		Retry: &RetryProfile{MaxRetries: 5, BaseDelay: 2 * time.Second, MaxDelay: time.Minute, On: []string{"rate_limit", "tool_call_state"}},
	}
	if diff := cmp.Diff(want, m.Compensations); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	m.Compensations.CoreTools[0] = "changed"
	m.Compensations.Retry.On[0] = "changed"
	again, _ := reg.Resolve("openai:gpt-5")
	if diff := cmp.Diff(want, again.Compensations); diff != "" {
		t.Errorf("the registry's entry changed through a copy (-want +got)\n%s", diff)
	}
	if mini, _ := reg.Resolve("openai:gpt-5-mini"); mini.Compensations != nil {
		t.Errorf("compensations are off by default, got %+v", mini.Compensations)
	}
	def, err := DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range def.Models() {
		if m.Compensations != nil {
			t.Errorf("the default registry turns on compensations for %s", m.ID)
		}
	}
}

func TestCompensationsErrors(t *testing.T) {
	head := "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    compensations:\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown key", "      max_tool: 3\n", "bad.yaml:6: models.a:m.compensations.max_tool: unknown field (want prompt_addendum, max_tools, core_tools, force_tool_first_turn, retry, tier_stand_in)"},
		{"cap below one", "      max_tools: 0\n", "bad.yaml:6: models.a:m.compensations.max_tools: must be at least 1"},
		{"core tools without a cap", "      core_tools: [read_file]\n", "models.a:m.compensations.core_tools: core_tools needs max_tools"},
		{"force not a bool", "      force_tool_first_turn: yes please\n", "bad.yaml:6: models.a:m.compensations.force_tool_first_turn: want true or false"},
		{"addendum not a string", "      prompt_addendum: [a]\n", "bad.yaml:6: models.a:m.compensations.prompt_addendum: want a string"},
		{"retry without max", "      retry: {on: [rate_limit]}\n", "models.a:m.compensations.retry.max_retries: missing"},
		{"retry without on", "      retry: {max_retries: 2}\n", "models.a:m.compensations.retry.on: missing"},
		{"retry on something else", "      retry: {max_retries: 2, on: [rate_limit, flaky]}\n", "bad.yaml:6: models.a:m.compensations.retry.on: \"flaky\" is neither an error class nor an error code"},
		{"bad delay", "      retry: {max_retries: 2, on: [network], base_delay: soon}\n", "bad.yaml:6: models.a:m.compensations.retry.base_delay: want a duration such as 2s or 1m30s, got \"soon\""},
		{"max below base", "      retry: {max_retries: 2, on: [network], base_delay: 5s, max_delay: 1s}\n", "models.a:m.compensations.retry.max_delay: 1s is less than base_delay 5s"},
		{"unknown retry key", "      retry: {max_retries: 2, on: [network], jitter: true}\n", "bad.yaml:6: models.a:m.compensations.retry.jitter: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadRegistry(strings.NewReader(head+tc.yaml), "bad.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestWithCompensations: the copy gives the named model (by alias too)
// the block and every other model none, and leaves the original alone.
func TestWithCompensations(t *testing.T) {
	const file = `adapters:
  openai: {type: openai}
models:
  openai:gpt-5:
    tier: balanced
    aliases: [five]
    compensations: {prompt_addendum: Old.}
  openai:gpt-5-mini:
    tier: fast
    compensations: {force_tool_first_turn: true}
`
	reg, err := LoadRegistry(strings.NewReader(file), "models.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := &Compensations{MaxTools: 3, CoreTools: []string{"read_file"}}
	got, err := reg.WithCompensations("five", c)
	if err != nil {
		t.Fatal(err)
	}
	c.CoreTools[0] = "changed" // the copy holds its own
	m, err := got.Resolve("openai:gpt-5")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Compensations{MaxTools: 3, CoreTools: []string{"read_file"}}, m.Compensations); diff != "" {
		t.Errorf("openai:gpt-5 compensations (-want +got):\n%s", diff)
	}
	if m.Tier != "balanced" || len(m.Aliases) != 1 {
		t.Errorf("openai:gpt-5 lost its entry: %+v", m)
	}
	if mini, _ := got.Resolve("openai:gpt-5-mini"); mini.Compensations != nil {
		t.Errorf("openai:gpt-5-mini kept %+v, want none", mini.Compensations)
	}
	if orig, _ := reg.Resolve("openai:gpt-5"); orig.Compensations == nil || orig.Compensations.PromptAddendum != "Old." {
		t.Errorf("the original registry changed: %+v", orig.Compensations)
	}
	if _, err := reg.WithCompensations("openai:nope", c); err == nil {
		t.Error("WithCompensations of an unknown model: no error")
	}
}
