package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// MissingFiles warns, for each of scs's matrix models that cfg's registry
// and factories say it runs on, about golden files and cassettes that do
// not exist yet under cfg's GoldenDir and CassetteDir: the run would fail
// until `conform run --record=missing` (or record and --update) writes
// them. Cassettes are checked only for runs without goldens: a run with
// goldens has passed before, so a cassette it lacks is one it never
// reached (a fault answered every attempt, or the history was refused
// before the wire). Each warning names the scenario's file and line.
func MissingFiles(cfg Config, scs []*scenario.Scenario) []*scenario.Error {
	reg, err := cfg.registry()
	if err != nil {
		return nil
	}
	var out []*scenario.Error
	for _, sc := range scs {
		pos := sc.Position("/id")
		for _, model := range sc.Models {
			if !runsOn(cfg, reg, sc, model) {
				continue
			}
			gdir := scenario.GoldenDir(cfg.goldenDir(), sc, model)
			var missing []string
			for _, name := range []string{check.GoldenTranscript, check.GoldenRequests, check.GoldenEvents} {
				if _, err := os.Stat(filepath.Join(gdir, name)); errors.Is(err, fs.ErrNotExist) {
					missing = append(missing, name)
				}
			}
			if len(missing) == 0 {
				continue
			}
			for _, prov := range sc.Providers(model) {
				path := scenario.CassettePath(cfg.cassetteDir(), sc, model, prov)
				if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
					out = append(out, &scenario.Error{Pos: pos, Rule: "missing-cassette",
						Msg: fmt.Sprintf("warning: %s has no cassette %s", model, path)})
				}
			}
			out = append(out, &scenario.Error{Pos: pos, Rule: "missing-golden",
				Msg: fmt.Sprintf("warning: %s has no golden %s under %s", model, strings.Join(missing, ", "), gdir)})
		}
	}
	return out
}

// runsOn reports whether model's adapter declares every capability sc
// requires (when it cannot tell, it assumes so).
func runsOn(cfg Config, reg *adapters.Registry, sc *scenario.Scenario, model string) bool {
	if len(sc.Requires) == 0 || len(cfg.Factories) == 0 {
		return true
	}
	m, err := reg.Resolve(model)
	if err != nil {
		return true
	}
	ad, err := reg.Open(m.Adapter, cfg.Factories, func(string) string { return FakeKey }, nil)
	if err != nil {
		return true
	}
	defer ad.Close()
	caps := ad.Capabilities(model)
	for _, name := range sc.Requires {
		if has, known := scenario.Has(caps, name); known && !has {
			return false
		}
	}
	return true
}
