package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

func TestRefine(t *testing.T) {
	base := &scenario.Expect{
		StopReason: canonical.StopEndTurn,
		Events:     map[canonical.EventType]int{canonical.EventMessageStart: 1},
		PerWire: map[string]*scenario.Expect{
			scenario.WireChat: {StopReason: canonical.StopToolUse, Events: map[canonical.EventType]int{canonical.EventToolUseEnd: 1}},
		},
		PerModel: map[string]*scenario.Expect{
			"vllm":   {ProviderStopReason: "stop"},
			"ollama": {StopReason: canonical.StopMaxTokens},
		},
	}
	got := base.Refine(scenario.WireChat, []string{"vllm", "vllm", "vllm:qwen"}, nil)
	if got.StopReason != canonical.StopToolUse || got.ProviderStopReason != "stop" {
		t.Fatalf("refined %+v", got)
	}
	if diff := cmp.Diff(map[canonical.EventType]int{canonical.EventMessageStart: 1, canonical.EventToolUseEnd: 1}, got.Events); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if base.Events[canonical.EventToolUseEnd] != 0 {
		t.Fatal("refine changed the general expectation")
	}
	if got := base.Refine(scenario.WireAnthropic, []string{"anthropic"}, nil); got.StopReason != canonical.StopEndTurn || got.PerWire != nil {
		t.Fatalf("refined for anthropic %+v", got)
	}
	if got := base.Refine(scenario.WireChat, []string{"ollama"}, nil); got.StopReason != canonical.StopMaxTokens {
		t.Fatalf("per_model does not win over per_wire: %+v", got)
	}
	base.PerRun = map[string]*scenario.Expect{"gemini": {StopReason: canonical.StopContentFilter}}
	if got := base.Refine(scenario.WireChat, []string{"ollama"}, []string{"gemini"}); got.StopReason != canonical.StopContentFilter {
		t.Fatalf("per_run does not win over per_model: %+v", got)
	}
}
