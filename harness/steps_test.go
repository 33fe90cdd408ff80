package harness_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
)

// checkNamed returns the checks of res named name, in order.
func checksNamed(res harness.ScenarioResult, name string) []check.Check {
	var out []check.Check
	for _, st := range res.Steps {
		for _, c := range st.Checks {
			if c.Name == name {
				out = append(out, c)
			}
		}
	}
	return out
}

func requirePass(t *testing.T, res harness.ScenarioResult) {
	t.Helper()
	var details []string
	for _, f := range res.Findings {
		details = append(details, f.String())
	}
	require.Equal(t, harness.StatusPass, res.Status, res.Reason+"\n"+strings.Join(details, "\n"))
}

func TestReloadKeepsProviderToolIDs(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: reload between a tool call and its result
models: [anthropic:claude-sonnet-4-6]
tools: [{name: read_file, description: d, input_schema: {type: object, properties: {path: {type: string}}}}]
steps:
  - user: read it
  - call: {stream: true, reply: {tool_calls: [{id: toolu_keep_me, name: read_file, input: {path: a}}]}}
  - reload: true
  - tool_result: contents
  - call: {reply: {text: done}}
    expect:
      request:
        json: {/messages/1/content/0/id: toolu_keep_me, /messages/2/content/0/tool_use_id: toolu_keep_me}
`)
	requirePass(t, res)
	reloads := checksNamed(res, check.CheckReload)
	require.Len(t, reloads, 1)
	assert.True(t, reloads[0].OK)
	assert.Len(t, checksNamed(res, check.CheckRequest), 1)
}

func TestReadyStep(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: readiness outcomes
models: [vllm:qwen2.5-7b-instruct]
steps:
  - ready: true
    expect:
      error: {class: invalid_request, code: model_not_found}
      request: {method: GET, path: /v1/models}
  - inject: {status: 401}
  - ready: {model: vllm:qwen2.5-7b-instruct}
    expect:
      error: {class: auth}
`)
	requirePass(t, res)
	assert.Len(t, checksNamed(res, check.CheckError), 2)

	res = runInline(t, emulated(t), `
id: inline
title: a hosted adapter has no probe
models: [anthropic:claude-sonnet-4-6]
steps:
  - ready: true
`)
	// The probe is optional: the step does not apply.
	assert.Equal(t, harness.StatusSkip, res.Status)
	assert.Contains(t, res.Reason, "adapter anthropic has no readiness probe")
}

func TestDirectCallBypassesThePolicy(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: foreign thinking reaches the Chat Completions adapter directly
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: think
  - call:
      max_output_tokens: 4096
      thinking: {budget_tokens: 1024}
      reply: {thinking: Let me think., signature: sig-anthropic-1, text: Done.}
    expect:
      blocks: [{thinking: {text: Let me think., signature: sig-anthropic-1}}, text]
  - swap: openai:gpt-4.1
  - user: again
  - call:
      direct: true
      reply: {text: Again.}
    expect:
      blocks: [{text: Again.}]
      logs: [{level: WARN, fields: {block_type: thinking}}]
      request: {excludes: [sig-anthropic-1, Let me think.]}
  - user: once more
  - call: {reply: {text: Once more.}}
    expect:
      request: {json: {/messages/0/content: think, /messages/2/content: again, /messages/3/content: once more}}
`)
	requirePass(t, res)
	assert.Len(t, checksNamed(res, check.CheckLogs), 1)
}

func TestSameAs(t *testing.T) {
	cfg := emulated(t)
	sc := parse(t, "inline.yaml", `
id: inline
title: substitutable
models: [anthropic:claude-sonnet-4-6, openai:gpt-5, gemini:gemini-2.5-flash]
same_as: anthropic:claude-sonnet-4-6
tools: [{name: read_file, description: d, input_schema: {type: object, properties: {path: {type: string}}}}]
steps:
  - user: read it
  - call: {stream: true, reply: {text: Reading., tool_calls: [{name: read_file, input: {path: a}}]}}
  - tool_result: contents
  - call: {reply: {text: done}}
`)
	for _, m := range sc.Models {
		requirePass(t, harness.RunScenario(context.Background(), cfg, sc, m))
	}
	sc.SameAs = "openai:gpt-4.1"
	res := harness.RunScenario(context.Background(), cfg, sc, "gemini:gemini-2.5-flash")
	assert.Equal(t, harness.StatusFail, res.Status)
	assert.Contains(t, res.Reason, "openai:gpt-4.1 is not in the scenario's matrix")
}

func TestKnownFailure(t *testing.T) {
	src := `
id: inline
title: a marked run
models: [openai:gpt-5]
known_failures:
  - {models: [openai], symptom: the adapter says end_turn}
steps:
  - user: hi
  - call: {reply: {text: Hello}}
    expect: {stop_reason: %s}
`
	res := runInline(t, emulated(t), strings.Replace(src, "%s", "max_tokens", 1))
	assert.Equal(t, harness.StatusKnownFailure, res.Status)
	assert.Contains(t, res.Reason, "known failure (the adapter says end_turn); got: step 2 (call): stop_reason")
	r := harness.Result{Runs: []harness.ScenarioResult{res}}
	assert.False(t, r.Failed(), "a known failure does not fail the suite")
	assert.Len(t, r.KnownFailures(), 1)

	res = runInline(t, emulated(t), strings.Replace(src, "%s", "end_turn", 1))
	assert.Equal(t, harness.StatusFail, res.Status)
	assert.Contains(t, res.Reason, "marked as a known failure (the adapter says end_turn) but passed")
}

func TestWaitsUsageAndCost(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: usage, cost and Retry-After on the virtual clock
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - inject: {status: 429, headers: {retry-after: "2"}}
  - call: {reply: {text: Hello, usage: {input_tokens: 8, output_tokens: 42}}}
    expect:
      attempts: 2
      waits: [2s]
      usage: {input_tokens: 8, output_tokens: 42, cached_input_tokens: 0}
      cost: {usd: "0.000654", pricing_version: "2026-05-08"}
      session_cost: "0.000654"
  - user: again
  - call: {reply: {text: Hi, usage: {input_tokens: 100, output_tokens: 10}}}
    expect:
      waits: []
      session_cost: "0.001104"
`)
	requirePass(t, res)
	for _, name := range []string{check.CheckWaits, check.CheckUsage, check.CheckCost, check.CheckSessionCost} {
		assert.NotEmpty(t, checksNamed(res, name), name)
	}

	res = runInline(t, emulated(t), `
id: inline
title: a wrong wait fails
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - inject: {status: 429, headers: {retry-after: "2"}}
  - call: {reply: {text: Hello}}
    expect: {waits: [3s]}
`)
	assert.Equal(t, harness.StatusFail, res.Status)
	assert.Contains(t, res.Reason, "waits [2s], want [3s]")
}

func TestFragmentsVerbatim(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: raw fragments
models: [openai:gpt-4.1]
tools: [{name: write_file, description: d, input_schema: {type: object, properties: {path: {type: string}, content: {type: string}}}}]
steps:
  - user: write it
  - call:
      stream: true
      reply: {text: "Writing <b>it</b> now.", tool_calls: [{name: write_file, input: {path: a.txt, content: "x\ny \"z\""}}]}
    expect:
      fragments: verbatim
      events: {tool.use_end: 1}
`)
	requirePass(t, res)
	require.Len(t, checksNamed(res, check.CheckFragments), 1)
}
