package scenario_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

func parse(t *testing.T, name, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(name, []byte(src))
	require.NoError(t, err)
	return sc
}

func TestLint(t *testing.T) {
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
models: [anthropic:claude-sonnet-4-6]
tools: [{name: f, description: d, input_schema: {type: object}}]
steps:
  - user: hi
  - call: {reply: {tool_calls: [{name: f}]}}
  - tool_result: ok
  - call: {}
`,
		},
		{
			name: "unknown models",
			src: `
id: m
title: t
models: [anthropic:claude-nope]
steps:
  - user: hi
  - call: {model: "openai:gpt-0"}
  - swap: gemini:nope
`,
			want: []string{
				`m.yaml:4:10: model "anthropic:claude-nope" is not in the registry [unknown-model]`,
				`m.yaml:7:19: model "openai:gpt-0" is not in the registry [unknown-model]`,
				`m.yaml:8:11: model "gemini:nope" is not in the registry [unknown-model]`,
			},
		},
		{
			name: "undefined tools",
			src: `
id: u
title: t
models: [anthropic:claude-sonnet-4-6]
tools: [{name: f, description: d, input_schema: {type: object}}]
steps:
  - user: hi
  - call: {tool_choice: {tool: g}, reply: {tool_calls: [{name: h}]}}
    expect: {blocks: [{tool_use: {name: i}}]}
  - tool_result: {tool: j, content: x}
`,
			want: []string{
				`u.yaml:8:32: tool "g" is not defined in tools (defined: f) [undefined-tool]`,
				`u.yaml:8:64: tool "h" is not defined in tools (defined: f) [undefined-tool]`,
				`u.yaml:9:23: tool "i" is not defined in tools (defined: f) [undefined-tool]`,
				`u.yaml:10:25: tool "j" is not defined in tools (defined: f) [undefined-tool]`,
			},
		},
		{
			name: "tool_result without a tool-using call",
			src: `
id: o
title: t
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - tool_result: x
  - call: {reply: {text: no tools}}
  - tool_result: y
`,
			want: []string{
				`o.yaml:7:5: tool_result, but no earlier call expects or scripts a tool call [orphan-tool-result]`,
				`o.yaml:9:5: tool_result, but no earlier call expects or scripts a tool call [orphan-tool-result]`,
			},
		},
		{
			name: "more results than calls",
			src: `
id: r
title: t
models: [anthropic:claude-sonnet-4-6]
tools: [{name: f, description: d, input_schema: {type: object}}]
steps:
  - user: hi
  - call: {}
    expect: {blocks: [tool_use]}
  - tool_result: a
  - tool_result: b
`,
			want: []string{`r.yaml:11:5: tool_result number 2, but the last call makes 1 tool call(s) [orphan-tool-result]`},
		},
		{
			name: "cancel and inject targets",
			src: `
id: c
title: t
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - cancel: {after_events: 2}
  - call: {}
  - cancel: {before_first_byte: true}
  - cancel: {after: text.delta}
  - call: {both: true}
  - inject: {status: 500}
`,
			want: []string{
				`c.yaml:8:11: the cancel of step 2 counts stream events, so this call must have stream: true [cancel-target]`,
				`c.yaml:10:5: a second cancel before the call the cancel of step 4 applies to [cancel-target]`,
				`c.yaml:11:18: the cancel of step 5 cannot apply to a call with both: true [cancel-target]`,
				`c.yaml:12:5: inject is not followed by a call or ready step [inject-target]`,
			},
		},
		{
			name: "stop_reading needs an event to stop at",
			src: `
id: s
title: t
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - cancel: {before_first_byte: true, stop_reading: true}
  - call: {stream: true}
  - cancel: {after_events: 2, stop_reading: true}
  - call: {stream: true}
`,
			want: []string{
				`s.yaml:7:53: stop_reading stops reading the stream at an event, so it needs after_events or after [cancel-target]`,
			},
		},
		{
			name: "misplaced expectations",
			src: `
id: e
title: t
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - call: {}
    expect: {events: {text.delta: 1}, refused: true}
  - swap: openai:gpt-5
    expect: {stop_reason: end_turn}
`,
			want: []string{
				`e.yaml:8:48: refused applies to swap steps [expect-misplaced]`,
				`e.yaml:8:22: events are counted only on streaming calls; add stream: true [expect-misplaced]`,
				`e.yaml:10:13: a swap step's expect takes only refused, reasons, error, lifecycle and logs [expect-misplaced]`,
			},
		},
		{
			name: "bad tool definition and shared model names",
			src: `
id: d
title: t
models: [anthropic:claude-sonnet-4-6, openai:claude-sonnet-4-6]
tools:
  - {name: f, description: d, input_schema: {type: object}}
  - {name: f, description: d, input_schema: {type: array}}
steps:
  - user: hi
`,
			want: []string{
				`d.yaml:4:39: model "openai:claude-sonnet-4-6" is not in the registry [unknown-model]`,
				`d.yaml:4:39: models anthropic:claude-sonnet-4-6 and openai:claude-sonnet-4-6 share the name "claude-sonnet-4-6", which names their cassettes and goldens [model-names]`,
				`d.yaml:7:12: tool "f" is defined twice [tool-definition]`,
				`d.yaml:7:5: tool "f": invalid_request/invalid_tool_schema: input_schema#/type: the root of an input schema must be type "object"; input_schema#: array schema has no items [tool-definition]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.src[len("\nid: "):]
			name = name[:indexByte(name, '\n')] + ".yaml"
			errs := scenario.Lint([]*scenario.Scenario{parse(t, name, tt.src)}, reg)
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

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return len(s)
}

func TestLintDuplicateIDsAndPaths(t *testing.T) {
	src := "id: a/b\ntitle: t\nmodels: [anthropic:claude-sonnet-4-6]\nsteps: [{user: hi}]\n"
	one, two := parse(t, "one.yaml", src), parse(t, "two.yaml", src)
	two.Rel = "a/c.yaml"
	errs := scenario.Lint([]*scenario.Scenario{one, two}, nil)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if diff := cmp.Diff([]string{
		`two.yaml:1:5: id "a/b" is also used by one.yaml [duplicate-id]`,
		`two.yaml:1:5: id "a/b" does not match the file's path; want "a/c" [id-path]`,
	}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestLintBuiltInSuite(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	scs, err := scenario.LoadDir("../../scenarios")
	require.NoError(t, err)
	assert.Empty(t, scenario.Lint(scs, reg))
}
