package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/scenario"
)

// Record modes of `conform run --record`, after vcrpy's: none replays
// only (a missing cassette or golden fails the run); missing first
// records, against the built-in emulator, the cassettes of every selected
// run that has no goldens yet, then writes the goldens a passing run
// lacks. Existing cassettes and goldens are never touched.
const (
	recordNone    = "none"
	recordMissing = "missing"
)

var recordModes = []string{recordNone, recordMissing}

// recordMissingCassettes records the cassettes of the selected runs that
// have no goldens and lack a cassette, against the emulator, printing one
// line per run. It returns false when a recording failed.
func recordMissingCassettes(ctx context.Context, cfg harness.Config, stdout io.Writer) bool {
	ok := true
	for _, p := range harness.Select(cfg.Scenarios, cfg) {
		if !lacksGoldens(cfg, p) || !lacksCassette(cfg, p) {
			continue
		}
		sum, err := record.Run(ctx, record.Config{
			Scenarios: []*scenario.Scenario{p.Scenario}, Models: []string{p.Model},
			ScenarioDir: cfg.ScenarioDir, CassetteDir: cfg.CassetteDir, GoldenDir: cfg.GoldenDir,
			Emulator: true, Out: io.Discard,
		})
		name := p.Scenario.ID + " [" + p.Model + "]"
		if err != nil {
			fmt.Fprintf(stdout, "record FAILED %s: %v\n", name, err)
			ok = false
			continue
		}
		for _, r := range sum.Runs {
			switch r.Action {
			case record.ActionRecorded:
				fmt.Fprintf(stdout, "record %s: wrote %s (against the emulator)\n", name, strings.Join(r.Cassettes, ", "))
			case record.ActionNoTraffic:
				fmt.Fprintf(stdout, "record %s: never reaches a provider, needs no cassette\n", name)
			case record.ActionFailed:
				fmt.Fprintf(stdout, "record FAILED %s: %s\n", name, r.Reason)
				ok = false
			}
		}
	}
	return ok
}

func lacksGoldens(cfg harness.Config, p harness.Pair) bool {
	dir := scenario.GoldenDir(cfg.GoldenDir, p.Scenario, p.Model)
	return slices.ContainsFunc([]string{check.GoldenTranscript, check.GoldenRequests, check.GoldenEvents}, func(name string) bool {
		return missing(filepath.Join(dir, name))
	})
}

func lacksCassette(cfg harness.Config, p harness.Pair) bool {
	return slices.ContainsFunc(p.Scenario.Providers(p.Model), func(prov string) bool {
		return missing(scenario.CassettePath(cfg.CassetteDir, p.Scenario, p.Model, prov))
	})
}

func missing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// newGoldens is a Config.Golden hook that holds back the goldens that do
// not exist yet (the comparison passes) and compares the others as
// usual; write then writes the held-back goldens of the runs that passed.
type newGoldens struct {
	update bool
	mu     sync.Mutex
	held   map[string][]byte
}

func (g *newGoldens) compare(path string, got []byte) (string, error) {
	if missing(path) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.held == nil {
			g.held = map[string][]byte{}
		}
		g.held[path] = got
		return "", nil
	}
	return check.CompareGolden(path, got, g.update)
}

// write writes the held-back goldens of res's passing runs and prints
// them; the goldens of failed runs are dropped.
func (g *newGoldens) write(cfg harness.Config, res *harness.Result, stdout io.Writer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, run := range res.Runs {
		if run.Status != harness.StatusPass {
			continue
		}
		sc := &scenario.Scenario{ID: run.ID}
		dir := scenario.GoldenDir(cfg.GoldenDir, sc, run.Model)
		var wrote []string
		for _, name := range []string{check.GoldenTranscript, check.GoldenRequests, check.GoldenEvents} {
			path := filepath.Join(dir, name)
			data, ok := g.held[path]
			if !ok {
				continue
			}
			if _, err := check.CompareGolden(path, data, true); err != nil {
				return err
			}
			wrote = append(wrote, name)
		}
		if len(wrote) > 0 {
			fmt.Fprintf(stdout, "new goldens for %s: %s in %s\n", run.Name(), strings.Join(wrote, ", "), dir)
		}
	}
	return nil
}
