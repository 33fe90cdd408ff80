package main

import (
	"fmt"
	"io"
	"os"

	"github.com/metis-llm/metis/harness"
)

// progress is conform run's progress line on a terminal: "[123/2790] 1
// failed: tools/x [openai:gpt-5]", rewritten in place as runs end and
// erased before the results print.
type progress struct {
	w      io.Writer
	failed int
	last   string // the last failed run
}

// newProgress returns the progress line for stdout, nil when stdout is
// not a terminal (a file, a pipe, CI's log): there it would only add
// noise.
func newProgress(stdout io.Writer) *progress {
	f, ok := stdout.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 || os.Getenv("TERM") == "dumb" {
		return nil
	}
	return &progress{w: stdout}
}

// update is a harness.Config.Progress.
func (p *progress) update(done, total int, r *harness.ScenarioResult) {
	if r.Status == harness.StatusFail {
		p.failed++
		p.last = r.Name()
	}
	line := fmt.Sprintf("[%d/%d] %d failed", done, total, p.failed)
	if p.last != "" {
		line += ": " + p.last
	}
	fmt.Fprint(p.w, "\r\033[K"+line)
}

// clear erases the line.
func (p *progress) clear() { fmt.Fprint(p.w, "\r\033[K") }
