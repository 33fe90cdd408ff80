package harness

import (
	"context"
	"sync"
)

// failFast is Run's stop under Config.FailFast: after the first failed
// run it starts no more runs and cancels the ones in flight, whose
// results are then dropped (a run cut short by the stop did not fail on
// its own). Without FailFast it keeps every run and never stops.
type failFast struct {
	on     bool
	cancel context.CancelFunc

	mu      sync.Mutex
	stopped bool
	ran     []bool // ran[i]: run i ended before the stop, or is the run that stopped it
}

// newFailFast returns the context Run's runs use and the stop watching
// them, for n runs.
func newFailFast(ctx context.Context, on bool, n int) (context.Context, *failFast) {
	ctx, cancel := context.WithCancel(ctx)
	return ctx, &failFast{on: on, cancel: cancel, ran: make([]bool, n)}
}

// stop reports whether a failed run has stopped the suite.
func (f *failFast) stop() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped
}

// keep records that run i ended with r and reports whether r is kept:
// false for a run that ended after the stop. A kept failed run stops
// the suite when FailFast is on.
func (f *failFast) keep(i int, r *ScenarioResult) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	f.ran[i] = true
	if f.on && r.Status == StatusFail {
		f.stopped = true
		f.cancel()
	}
	return true
}

// kept returns the runs of runs that ended before the stop, in order,
// and how many of the len(runs) did not run (or were cancelled).
func (f *failFast) kept(runs []ScenarioResult) ([]ScenarioResult, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		return runs, 0
	}
	out := runs[:0]
	for i, r := range runs {
		if f.ran[i] {
			out = append(out, r)
		}
	}
	return out, len(runs) - len(out)
}
