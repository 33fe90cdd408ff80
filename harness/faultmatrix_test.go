package harness_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/report"
)

// TestFaultMatrix: a cell fails when any call carrying its fault failed,
// is a known failure when the rest passed and one failed as known, is
// skip when no call ran, missing when no run covers it, n/a for a
// non-streamed error_event or malformed; covered counts the cells with a
// call among those where the kind applies.
func TestFaultMatrix(t *testing.T) {
	run := func(id, model string, status harness.Status, uses ...harness.FaultUse) harness.ScenarioResult {
		return harness.ScenarioResult{ID: id, Model: model, Status: status, Faults: uses}
	}
	use := func(col string, streamed bool, st harness.Status, kinds ...string) harness.FaultUse {
		return harness.FaultUse{Kinds: kinds, Column: col, Streamed: streamed, Status: st}
	}
	m := report.NewFaultMatrix([]harness.ScenarioResult{
		run("a", "gemini:gemini-2.5-flash", harness.StatusFail,
			use("gemini", true, harness.StatusPass, "truncate"), use("gemini", true, harness.StatusFail, "truncate")),
		run("b", "anthropic:claude-sonnet-4-6", harness.StatusKnownFailure,
			use("anthropic", true, harness.StatusKnownFailure, "partial"), use("anthropic", false, harness.StatusPass, "partial")),
		run("c", "anthropic:claude-sonnet-4-6", harness.StatusSkip,
			use("anthropic", true, harness.StatusSkip, "status", "truncate")),
	})
	if diff := cmp.Diff([]string{"status", "body", "reset", "error_event", "truncate", "partial", "stall", "malformed", "drip", "burst"}, m.Kinds); diff != "" {
		t.Errorf("m.Kinds mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"anthropic", "gemini"}, m.Columns); diff != "" {
		t.Errorf("in the default columns' order (-want +got):\n%s", diff)
	}
	cell := func(kind, col string) report.FaultCell {
		for _, c := range m.Cells {
			if c.Kind == kind && c.Column == col {
				return c
			}
		}
		t.Fatalf("no cell %s × %s", kind, col)
		return report.FaultCell{}
	}
	for _, tt := range []struct {
		kind, col string
		want      report.FaultCell
	}{
		{"truncate", "gemini", report.FaultCell{Kind: "truncate", Column: "gemini", Streamed: "fail", NonStreamed: "missing", Runs: []string{"a [gemini:gemini-2.5-flash]"}}},
		{"partial", "anthropic", report.FaultCell{Kind: "partial", Column: "anthropic", Streamed: "known_failure", NonStreamed: "pass", Runs: []string{"b [anthropic:claude-sonnet-4-6]"}}},
		{"status", "anthropic", report.FaultCell{Kind: "status", Column: "anthropic", Streamed: "skip", NonStreamed: "missing", Runs: []string{"c [anthropic:claude-sonnet-4-6]"}}},
		{"malformed", "gemini", report.FaultCell{Kind: "malformed", Column: "gemini", Streamed: "missing", NonStreamed: "n/a"}},
	} {
		if diff := cmp.Diff(tt.want, cell(tt.kind, tt.col)); diff != "" {
			t.Errorf("%s × %s (-want +got):\n%s", tt.kind, tt.col, diff)
		}
	}
	// 10 kinds × 2 columns × 2 modes, less the 3 stream-only kinds' 6
	// non-streamed cells; covered: truncate×2 (anthropic streamed via
	// c, gemini streamed), partial×2, status anthropic streamed.
	assert.Equal(t, 34, m.Total)
	assert.Equal(t, 5, m.Covered)
}

// TestRunRecordsItsFaults: a run lists each call an inject step put a
// fault on, with the kinds of its spec (a sequence's in order), its
// column and whether it streamed.
func TestRunRecordsItsFaults(t *testing.T) {
	res := runInline(t, emulated(t), `
id: inline
title: two faulted calls
models: [anthropic:claude-sonnet-4-6]
max_retries: 2
steps:
  - user: hi
  - inject: {sequence: [{status: 429, retry_after: 0}, {kind: reset}]}
  - call:
      stream: true
      reply: {text: Hi!}
    expect: {attempts: 3, stop_reason: end_turn}
  - user: again
  - call: {stream: false, reply: {text: Hi again!}}
  - user: and again
  - inject: {kind: truncate}
  - call:
      stream: false
      reply: {text: whole the second time}
    expect: {attempts: 2, stop_reason: end_turn}
`)
	require.Equal(t, harness.StatusPass, res.Status, res.Reason)
	want := []harness.FaultUse{
		{Kinds: []string{"status", "reset"}, Step: 2, Column: "anthropic", Streamed: true, Status: harness.StatusPass},
		{Kinds: []string{"truncate"}, Step: 7, Column: "anthropic", Streamed: false, Status: harness.StatusPass},
	}
	if diff := cmp.Diff(want, res.Faults); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
}
