package harness_test

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/session/sessiontest"
)

func runInline(t *testing.T, cfg harness.Config, src string) harness.ScenarioResult {
	t.Helper()
	sc := parse(t, "inline.yaml", src)
	return harness.RunScenario(context.Background(), cfg, sc, sc.Models[0])
}

func TestCancelBeforeFirstByte(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: cancelled before the response
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: hi
  - cancel: {before_first_byte: true}
  - call:
      stream: true
      reply: {text: never seen}
    expect:
      error: {class: cancelled}
      attempts: 1
      events: {message.start: 0}
`)
	assert.Equal(t, harness.StatusPass, res.Status, res.Reason)
}

func TestFailedExpectationStopsTheRun(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: a wrong expectation
models: [openai:gpt-5]
steps:
  - user: hi
  - call:
      stream: true
      reply: {text: Hello}
    expect: {stop_reason: max_tokens, text_contains: Goodbye}
  - user: again
  - call: {reply: {text: Hi}}
`)
	assert.Equal(t, harness.StatusFail, res.Status)
	assert.Equal(t, `step 2 (call): stop_reason: stop_reason end_turn, want max_tokens; text_contains: response text "Hello" does not contain "Goodbye"`, res.Reason)
	assert.Len(t, res.Steps, 2, "steps after the failing one do not run")
}

func TestSwapRefusal(t *testing.T) {
	reg, err := adapters.LoadRegistry(strings.NewReader(`
adapters:
  anthropic: {type: anthropic, api_key: sk-test-FAKE}
  openai: {type: openai, api_key: sk-test-FAKE}
models:
  anthropic:claude-sonnet-4-6: {}
  openai:gpt-5:
    capabilities: {supports_images: false}
`), "test-models.yaml")
	require.NoError(t, err)
	cfg := emulated(t)
	cfg.Registry = reg
	src := `
id: inline
title: a swap the history forbids
models: [anthropic:claude-sonnet-4-6]
steps:
  - user: {text: look, images: [{media_type: image/png, data: iVBORw0KGgo=}]}
  - swap: {model: openai:gpt-5, expect_refusal: true}
  - swap: openai:gpt-5
`
	res := runInline(t, cfg, src)
	assert.Equal(t, harness.StatusFail, res.Status)
	require.Len(t, res.Steps, 3)
	assert.Equal(t, harness.StatusPass, res.Steps[1].Status, "the expected refusal passes")
	assert.Equal(t, "step 3 (swap): cannot swap to openai:gpt-5: session contains images that this model can't process", res.Reason)
}

// brokenStream is an adapter whose stream breaks rule 2 of 000 §5.2.
type brokenStream struct{ sessiontest.Adapter }

func (b *brokenStream) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	id := req.RequestID
	return sessiontest.Seq([]canonical.StreamEvent{
		{Type: canonical.EventMessageStart, MessageID: id},
		{Type: canonical.EventToolUseStart, MessageID: id, ToolUseID: "tu_01JZ0000000000000000000001", ToolName: "f"},
		{Type: canonical.EventMessageComplete, MessageID: id, Response: &canonical.Response{RequestID: id, StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{canonical.ToolUseBlock{ID: "tu_01JZ0000000000000000000001", Name: "f", Input: json.RawMessage("{}")}}}},
	}, nil)
}

func TestStreamViolationsAreFindings(t *testing.T) {
	reg, err := adapters.LoadRegistry(strings.NewReader(`
adapters:
  fake: {type: fake}
models:
  fake:model: {}
`), "test-models.yaml")
	require.NoError(t, err)
	cfg := harness.Config{Registry: reg, NoGoldens: true, Factories: map[string]adapters.Factory{
		"fake": func(adapters.Config) (adapters.Adapter, error) {
			return &brokenStream{sessiontest.Adapter{Provider: "fake", Caps: canonical.Capabilities{SupportsStreaming: true, SupportsTools: true}}}, nil
		},
	}}
	res := runInline(t, cfg, `
id: inline
title: a third party's broken adapter
models: [fake:model]
steps:
  - user: hi
  - call: {stream: true}
`)
	assert.Equal(t, harness.StatusFail, res.Status)
	require.Len(t, res.Findings, 1)
	assert.Equal(t, "stream/tool-lifecycle", res.Findings[0].ID)
	assert.Equal(t, 1, res.Findings[0].Step)
	assert.Equal(t, `event 2: tool-lifecycle: message.complete while tool "tu_01JZ0000000000000000000001" (started at event 1) has no tool.use_end`, res.Findings[0].Message)
}

func TestUnusedInteractionsWarn(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/e2e/cassettes/anthropic/basic/hello.yaml")
	require.NoError(t, err)
	// Duplicate the interaction: the second copy is never requested.
	s := string(data)
	i := strings.Index(s, "    - id: 0")
	s += strings.Replace(s[i:], "- id: 0", "- id: 1", 1)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "anthropic", "basic"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "anthropic", "basic", "hello.yaml"), []byte(s), 0o644))
	cfg := replayConfig(t)
	cfg.CassetteDir = dir
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	run := res.Runs[0]
	assert.Equal(t, harness.StatusPass, run.Status, run.Reason)
	require.Len(t, run.Findings, 1)
	if diff := cmp.Diff(harness.Finding{ID: "cassette/unused", Level: harness.LevelWarn, Step: -1,
		Message: filepath.Join(dir, "anthropic", "basic", "hello.yaml") + ": 1 recorded interaction(s) were never requested; re-record the cassette"}, run.Findings[0]); diff != "" {
		t.Errorf("run.Findings[0] mismatch (-want +got):\n%s", diff)
	}
}
