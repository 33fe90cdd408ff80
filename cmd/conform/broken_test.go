package main

import (
	"bytes"
	"context"
	"iter"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
)

// flipped wraps a real adapter and breaks one mapping: end_turn comes out
// as max_tokens, as a buggy stop-reason table would do.
type flipped struct{ adapters.Adapter }

func flip(r *canonical.Response) {
	if r != nil && r.StopReason == canonical.StopEndTurn {
		r.StopReason = canonical.StopMaxTokens
	}
}

func (f flipped) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	r, err := f.Adapter.Complete(ctx, req)
	flip(r)
	return r, err
}

func (f flipped) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		for ev, err := range f.Adapter.Stream(ctx, req) {
			if ev.Response != nil {
				r := *ev.Response
				flip(&r)
				ev.Response = &r
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// A deliberately broken adapter makes the suite fail, and the output says
// what differs in words a reader can act on.
func TestBrokenAdapterFailsReadably(t *testing.T) {
	cfg := harness.Config{
		ScenarioDir: filepath.Join(root, "scenarios"),
		CassetteDir: filepath.Join(root, "cassettes"),
		GoldenDir:   filepath.Join(root, "goldens"),
		IDs:         []string{"basic/plain-text"},
		Models:      []string{"anthropic"},
		Factories:   providers.Factories(),
	}
	// The control: the same run with the real adapter passes.
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.False(t, res.Failed(), res.Summary())

	factories := providers.Factories()
	real := factories["anthropic"]
	factories["anthropic"] = func(c adapters.Config) (adapters.Adapter, error) {
		a, err := real(c)
		return flipped{a}, err
	}
	cfg.Factories = factories
	res, err = harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.True(t, res.Failed(), "the flipped mapping went unnoticed")

	var out bytes.Buffer
	printResult(&out, res, detailCompact, "")
	assert.Regexp(t, `(?m)^FAIL basic/plain-text \[anthropic:claude-sonnet-4-6\] \.\./\.\./scenarios/basic/plain-text\.yaml:\d+: step \d+ \(call\) stop_reason: `, out.String(),
		"the failing step's file:line and check")
	assert.Contains(t, out.String(), "end_turn")
	assert.Contains(t, out.String(), "max_tokens")
	assert.Contains(t, out.String(), "0 passed, 1 failed, 0 skipped")
}
