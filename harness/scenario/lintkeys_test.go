package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

func TestLintMatrixAndNewSteps(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "clean",
			src: `
id: clean
title: t
requires: [tools]
lacks: [images]
same_as: vllm:qwen2.5-7b-instruct
known_failures: [{models: [ollama, lmstudio:qwen3-8b], symptom: s}]
steps:
  - user: hi
  - reload: true
  - inject: {status: 401}
  - ready: true
    expect: {error: {class: auth}, request: {path: /v1/models}}
  - call: {direct: true, stream: true}
    expect:
      fragments: verbatim
      per_model: {vllm: {stop_reason: end_turn}, ollama:qwen3: {stop_reason: end_turn}}
`,
		},
		{
			name: "bad matrix keys",
			src: `
id: m
title: t
models: [anthropic:claude-sonnet-4-6]
columns: [compat]
lacks: [images, tools]
requires: [tools]
same_as: openai:gpt-5
known_failures: [{models: [nope], symptom: s}]
steps: [{user: hi}]
`,
			want: []string{
				`bad matrix keys.yaml:6:17: capability "tools" is both required and lacking [unknown-capability]`,
				`bad matrix keys.yaml:5:10: columns narrows a column-derived matrix, but this scenario names its models [unknown-column]`,
				`bad matrix keys.yaml:6:8: lacks selects columns, but this scenario names its models [unknown-column]`,
				`bad matrix keys.yaml:8:10: same_as openai:gpt-5 is not one of the scenario's models [same-as]`,
				`bad matrix keys.yaml:9:28: "nope" is not a model of the registry, a column or a provider [known-failure]`,
			},
		},
		{
			name: "steps",
			src: `
id: s
title: t
models: [anthropic:claude-sonnet-4-6]
steps:
  - history: [{role: user, content: [{type: text, text: hi}]}]
  - reload: true
  - cancel: {after_events: 1}
  - ready: {model: vllm:nope}
    expect: {stop_reason: end_turn}
  - call: {direct: true, both: true}
    expect: {status: complete, fragments: verbatim, per_model: {nowhere: {}}}
  - swap: openai:gpt-5
    expect: {reasons: [images]}
`,
			want: []string{
				`steps.yaml:9:20: model "vllm:nope" is not in the registry [unknown-model]`,
				`steps.yaml:9:5: the cancel of step 3 cannot apply to a ready step [cancel-target]`,
				`steps.yaml:7:5: reload after a history step: the history step keeps the session in memory [reload]`,
				`steps.yaml:10:13: a ready step's expect takes only error, request, logs and waits [expect-misplaced]`,
				`steps.yaml:11:20: a direct call cannot also be both: true [direct-call]`,
				`steps.yaml:12:13: a direct call appends no message: status, cost and session_cost do not apply [direct-call]`,
				`steps.yaml:12:74: "nowhere" is not a model of the registry, a column or a provider [per-model]`,
				`steps.yaml:14:23: reasons belong to a refused swap: add refused: true [expect-misplaced]`,
			},
		},
		{
			name: "regression oracle",
			src: `
id: r
title: t
description: metis's own backoff schedule.
oracle: regression
steps: [{user: hi}]
`,
		},
		{
			name: "regression oracle unexplained",
			src: `
id: r
title: t
oracle: regression
known_failures: [{symptom: s}]
steps: [{user: hi}]
`,
			want: []string{
				`regression oracle unexplained.yaml:4:9: oracle: regression needs a description saying which of metis's own choices the scenario checks [oracle]`,
				`regression oracle unexplained.yaml:5:17: known_failures mark adapter bugs against the contract; a scenario with oracle: regression checks metis's own choices, which it fixes rather than marks [oracle]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := parse(t, tt.name+".yaml", tt.src)
			errs := scenario.Lint([]*scenario.Scenario{sc}, reg)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
