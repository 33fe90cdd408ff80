package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/scenarios"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"malformed.yaml", "testdata/load/malformed.yaml:3:9: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence; noticed at 4:6)"},
		{"unknown-key.yaml", `testdata/load/unknown-key.yaml:8:7: steps[1].call: unknown key "max_tokens" (want both, direct, max_output_tokens, model, output_schema, reply, stop_sequences, stream, temperature, thinking, tool_choice)`},
		{"wrong-type.yaml", "testdata/load/wrong-type.yaml:7:15: steps[1].call.stream: got string, want boolean"},
		{"two-actions.yaml", "testdata/load/two-actions.yaml:5:5: steps[0]: a step has exactly one of the keys user, call, tool_result, swap, cancel, inject, history, reload, ready"},
		{"no-action.yaml", "testdata/load/no-action.yaml:5:5: steps[0]: want one of the keys user, call, tool_result, swap, cancel, inject, history, reload, ready"},
		{"missing-steps.yaml", "testdata/load/missing-steps.yaml:1:1: missing property 'steps'"},
		{"bad-enum.yaml", "testdata/load/bad-enum.yaml:8:20: steps[1].expect.stop_reason: value must be one of 'end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'cancelled', 'error', 'content_filter'"},
		{"expect-on-user.yaml", "testdata/load/expect-on-user.yaml:6:5: steps[0]: expect belongs to a call, swap or ready step, not a user step"},
		{"bad-regexp.yaml", "testdata/load/bad-regexp.yaml:8:21: invalid regular expression: error parsing regexp: missing closing ): `(unclosed`"},
		{"duplicate-key.yaml", `testdata/load/duplicate-key.yaml:3:1: duplicate key "title" (first at line 2)`},
		{"not-a-mapping.yaml", "testdata/load/not-a-mapping.yaml:1:1: a scenario is a mapping of id, title, models, steps, ...; got a list"},
		{"empty.yaml", "testdata/load/empty.yaml:1:1: empty scenario file"},
		{"bad-image.yaml", "testdata/load/bad-image.yaml:8:11: steps[0].user.images[0]: want one of the keys data, url"},
		{"bad-request-url.yaml", "testdata/load/bad-request-url.yaml:9:22: steps[1].expect.request.url: 'https:///v1/messages' does not match pattern '^https?://[^/?#]+'"},
		{"bad-request-scheme.yaml", "testdata/load/bad-request-scheme.yaml:9:22: steps[1].expect.request.url: '/v1/messages' does not match pattern '^https?://[^/?#]+'"},
		{"bad-request-host.yaml", `testdata/load/bad-request-host.yaml:11:18: request host: "https://api.anthropic.com/v1": want a host name with an optional port, no scheme or path`},
		{"bad-request-method.yaml", `testdata/load/bad-request-method.yaml:9:25: request method: "PO ST" is not an HTTP method (letters only, such as POST)`},
		{"bad-request-present.yaml", "testdata/load/bad-request-present.yaml:9:27: request present: /max_tokens is also in absent: a pointer cannot be both"},
		{"bad-request-query.yaml", "testdata/load/bad-request-query.yaml:9:24: request query: a query parameter has an empty name"},
		{"bad-credentials.yaml", `testdata/load/bad-credentials.yaml:6:34: credentials.tokens[0].expires_in "0s": want a positive duration such as 10m`},
		{"bad-credentials-env.yaml", "testdata/load/bad-credentials-env.yaml:5:36: credentials.env.GOOGLE_OAUTH_ACCESS_TOKEN: got array, want string"},
		{"unknown-capability.yaml", "testdata/load/unknown-capability.yaml:3:12: requires[0]: value must be one of 'images', 'thinking', 'tools', 'system_prompt', 'structured_output', 'streaming', 'streaming_tool_calls', 'parallel_tool_calls', 'prompt_caching', 'system_messages_in_list'"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/load/" + tt.file
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			_, err = scenario.Parse(path, data)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var e *scenario.Error
			assert.True(t, errors.As(err, &e), "errors are *scenario.Error")
		})
	}
}

func TestLoadDirCollectsEveryError(t *testing.T) {
	scs, err := scenario.LoadDir("testdata/load")
	assert.Empty(t, scs)
	var errs scenario.Errors
	require.ErrorAs(t, err, &errs)
	assert.Len(t, errs, 22)
	assert.Equal(t, filepath.Join("testdata", "load", "bad-credentials-env.yaml"), errs[0].Pos.File, "files are loaded in lexical order")
}

func TestParseScenario(t *testing.T) {
	sc, err := scenario.Parse("x.yaml", []byte(`
id: tools/x
title: T
tags: [tools]
models: [anthropic:claude-sonnet-4-6, openai:gpt-5]
max_retries: 0
tools:
  - name: read_file
    description: Read a file.
    input_schema: {type: object, properties: {path: {type: string}}}
steps:
  - user: {text: look, images: [{media_type: image/png, data: iVBORw0KGgo=}]}
  - call:
      stream: true
      tool_choice: {tool: read_file}
      thinking: {effort: low}
      reply: {tool_calls: [{name: read_file, input: {path: a}}], usage: {input_tokens: 3}}
    expect:
      blocks: [thinking, {tool_use: {name: read_file, input: {path: a}}}]
      text_contains: x
      attempts: 1
      events: {tool.use_end: 1}
  - tool_result: done
  - cancel: {after_events: 2}
  - call: {stream: true, model: "openai:gpt-5"}
  - swap: {model: openai:gpt-5, expect_refusal: true}
  - inject: {status: 429, headers: {retry-after: "2"}, body: {error: x}}
  - call:
`))
	require.NoError(t, err)
	assert.Equal(t, "tools/x", sc.ID)
	require.Len(t, sc.Tools, 1)
	assert.True(t, sc.Tools[0].RequiresWorkspace, "requires_workspace defaults to true")
	assert.Equal(t, canonical.SideEffectsNone, sc.Tools[0].SideEffects)
	assert.Equal(t, 0, *sc.MaxRetries)
	require.Len(t, sc.Steps, 8)

	u := sc.Steps[0]
	assert.Equal(t, scenario.StepUser, u.Kind)
	if diff := cmp.Diff(scenario.Pos{File: "x.yaml", Line: 12, Col: 5}, u.Pos); diff != "" {
		t.Errorf("u.Pos mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "look", u.User.Text)
	if diff := cmp.Diff(canonical.ImageBlock{MediaType: "image/png", Source: canonical.ImageSource{Kind: "base64", Data: "iVBORw0KGgo="}}, u.User.Images[0].Block()); diff != "" {
		t.Errorf("u.User.Images[0].Block() mismatch (-want +got):\n%s", diff)
	}

	c := sc.Steps[1]
	assert.Equal(t, scenario.StepCall, c.Kind)
	assert.True(t, c.Call.Stream)
	if diff := cmp.Diff(&canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: "read_file"}, c.Call.ToolChoice); diff != "" {
		t.Errorf("c.Call.ToolChoice mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&canonical.ThinkingConfig{Effort: "low"}, c.Call.Thinking); diff != "" {
		t.Errorf("c.Call.Thinking mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "read_file", c.Call.Reply.ToolCalls[0].Name)
	assert.JSONEq(t, `{"path":"a"}`, string(c.Call.Reply.ToolCalls[0].Input))
	assert.Equal(t, 3, c.Call.Reply.Usage.InputTokens)
	if diff := cmp.Diff([]scenario.ExpectBlock{{Type: "thinking"}, {Type: "tool_use", Name: "read_file", Input: []byte(`{"path":"a"}`)}}, c.Expect.Blocks); diff != "" {
		t.Errorf("c.Expect.Blocks mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x"}, c.Expect.TextContains); diff != "" {
		t.Errorf("c.Expect.TextContains mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, 1, *c.Expect.Attempts)
	if diff := cmp.Diff(map[canonical.EventType]int{"tool.use_end": 1}, c.Expect.Events); diff != "" {
		t.Errorf("c.Expect.Events mismatch (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff(&scenario.ToolResultStep{Content: "done"}, sc.Steps[2].ToolResult); diff != "" {
		t.Errorf("sc.Steps[2].ToolResult mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&scenario.CancelStep{AfterEvents: 2}, sc.Steps[3].Cancel); diff != "" {
		t.Errorf("sc.Steps[3].Cancel mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "openai:gpt-5", sc.Steps[4].Call.Model)
	assert.True(t, sc.Steps[5].Expect.Refused, "expect_refusal implies expect.refused")
	if diff := cmp.Diff(map[string]any{"status": float64(429), "headers": map[string]any{"retry-after": "2"}, "body": map[string]any{"error": "x"}}, sc.Steps[6].Inject); diff != "" {
		t.Errorf("sc.Steps[6].Inject mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&scenario.CallStep{}, sc.Steps[7].Call); diff != "" {
		t.Errorf("a bare call: is a non-streaming call (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(scenario.Pos{File: "x.yaml", Line: 12, Col: 18}, sc.Position("/steps/0/user/text")); diff != "" {
		t.Errorf("sc.Position(/steps/0/user/text) mismatch (-want +got):\n%s", diff)
	}
}

func TestBuiltInSuiteLoads(t *testing.T) {
	scs, err := scenario.LoadFS(scenarios.FS)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(scs), 12)
	for _, sc := range scs {
		assert.Equal(t, sc.Rel, sc.ID+".yaml", "id matches path")
	}
}

func TestLoadDirMatchesEmbeddedSuite(t *testing.T) {
	a, err := scenario.LoadDir("../../scenarios")
	require.NoError(t, err)
	b, err := scenario.LoadFS(scenarios.FS)
	require.NoError(t, err)
	require.Equal(t, len(b), len(a))
	for i := range a {
		assert.Equal(t, b[i].ID, a[i].ID)
	}
}

func FuzzParse(f *testing.F) {
	// Small seeds keep the fuzzer's minimization fast.
	bad, _ := filepath.Glob("testdata/load/*.yaml")
	syntax, _ := filepath.Glob("testdata/syntax/*.yaml")
	for _, p := range append(append(bad, syntax...), "testdata/e2e/scenarios/basic/hello.yaml") {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]"))
	f.Add([]byte("steps: [{call: {stream: 1e400}}]"))
	f.Add([]byte("compensations: {max_tools: 2.0, core_tools: [x], retry: {max_retries: 1, on: [teapot]}}\nsteps: [{user: hi}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse("fuzz.yaml", data)
		if err == nil && sc == nil {
			t.Fatal("nil scenario without error")
		}
		if err != nil {
			var e *scenario.Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not a *scenario.Error: %v", err)
			}
			if e.Pos.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
		}
	})
}

// YAML syntax errors are reported at line:column of the mistake (the
// comments in the table say where it is), with the parser's context.
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		// line 6 is indented one space more than the list it belongs to
		{"bad-indent.yaml", "6:4: invalid YAML: did not find expected '-' indicator (while parsing a block collection at 5:3)"},
		// line 8 is indented one space less than the call's other keys
		{"nested-indent.yaml", "8:6: invalid YAML: did not find expected key (while parsing a block mapping at 6:5)"},
		// the quote opened at 2:8 is never closed
		{"unclosed-quote.yaml", "2:8: invalid YAML: found unexpected end of stream (while scanning a quoted scalar; noticed at 6:1)"},
		// line 5 starts with a tab
		{"tab.yaml", "5:1: invalid YAML: found character that cannot start any token (while scanning for the next token)"},
		// the second colon of line 2, at column 9
		{"colon-in-value.yaml", "2:9: invalid YAML: mapping values are not allowed in this context"},
		// the brace opened at 6:11 is never closed
		{"unclosed-flow.yaml", "6:11: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping; noticed at 7:9)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/syntax/" + tt.file
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			_, err = scenario.Parse(path, data)
			require.Error(t, err)
			assert.Equal(t, path+":"+tt.want, err.Error())
			var e *scenario.Error
			require.ErrorAs(t, err, &e)
			assert.Positive(t, e.Pos.Col, "the column is known")
		})
	}
}
