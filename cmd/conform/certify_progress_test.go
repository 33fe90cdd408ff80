package main

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/certify"
)

// gated is metis's adapter with its calls held at a gate: a call whose
// request holds match waits for release.
type gated struct {
	adapters.Adapter
	match   string
	release <-chan struct{}
	waited  chan<- bool // true: released; false: gave up
}

func (g gated) wait(req *canonical.Request) {
	data, _ := json.Marshal(req)
	if !bytes.Contains(data, []byte(g.match)) {
		return
	}
	select {
	case <-g.release:
		g.waited <- true
	case <-time.After(time.Minute): // only when the line never came: the test fails
		g.waited <- false
	}
}

func (g gated) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	g.wait(req)
	return g.Adapter.Complete(ctx, req)
}

func (g gated) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		g.wait(req)
		for ev, err := range g.Adapter.Stream(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// lineWriter is stdout as the test sees it: it closes release once a
// line naming first has been written.
type lineWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	first   string
	release chan struct{}
	once    sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.Contains(string(p), w.first) {
		w.once.Do(func() { close(w.release) })
	}
	return w.buf.Write(p)
}

// conform certify prints each run's line as the run ends: the line of a
// run that ended is out while another run is still held in its first
// call, which is released only by that line.
func TestCertifyPrintsRunsAsTheyEnd(t *testing.T) {
	release := make(chan struct{})
	waited := make(chan bool, 8)
	w := &lineWriter{first: "ok   basic/system-prompt-none [anthropic:", release: release}
	builtin := providers.Factories()["anthropic"]
	target := certify.Target{Provider: "anthropic", Kind: "go", Name: "gated", Version: "1",
		New: func(c adapters.Config) (adapters.Adapter, error) {
			a, err := builtin(c)
			if err != nil {
				return nil, err
			}
			return gated{Adapter: a, match: "Say hello in five words", release: release, waited: waited}, nil
		}}
	plan, err := certify.NewPlan(target, certify.Options{
		IDs: []string{"basic/plain-text", "basic/system-prompt-none"}, Progress: runLines(w),
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(plan.Runs), 2)
	report, err := certifyPlan(context.Background(), plan, len(plan.Runs), nil, false, w)
	require.NoError(t, err)
	close(waited)
	n := 0
	for released := range waited {
		assert.True(t, released, "a held call was never released: no run line before the last run ended")
		n++
	}
	assert.Positive(t, n, "no call of basic/plain-text was held")
	out := w.buf.String()
	first := strings.Index(out, "ok   basic/system-prompt-none [anthropic:")
	held := strings.Index(out, "ok   basic/plain-text [anthropic:")
	require.True(t, first >= 0 && held >= 0, out)
	assert.Less(t, first, held, "the line of the run that ended first comes first:\n%s", out)
	assert.Equal(t, 1, strings.Count(out, "ok   basic/plain-text [anthropic:claude-sonnet-4-6]"), "each run's line once:\n%s", out)
	assert.Contains(t, out, "profile core")
	assert.True(t, report.Certified, out)
}
