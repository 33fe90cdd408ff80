package certify

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
)

// What `conform serve` keeps: a run unused for ServeRunIdle is forgotten,
// and beyond ServeMaxRuns runs the one unused longest is, so that clients
// that never DELETE their runs do not grow the server without bound
// (each run holds its cassettes' state).
const (
	ServeRunIdle = time.Hour
	ServeMaxRuns = 1000
)

// NewServer returns a replay server, not yet started, whose clients
// create runs of the suite's scenarios (POST /runs) and arm faults as an
// inject step would (PUT /runs/{id}/fault): `conform serve`. Each run's
// cassettes are replayed with pacing between server-sent events. It keeps
// runs within ServeRunIdle and ServeMaxRuns (replay.Server's RunIdle and
// MaxRuns, which the caller may change before Start).
func (s Suite) NewServer(reg *adapters.Registry, pacing time.Duration) (*replay.Server, error) {
	reg, err := registryOr(reg)
	if err != nil {
		return nil, err
	}
	scs, err := s.Load()
	if err != nil {
		return nil, err
	}
	if scs, err = harness.Expand(scs, harness.Config{Registry: reg}); err != nil {
		return nil, err
	}
	byID := map[string]*harness.Scenario{}
	for _, sc := range scs {
		byID[sc.ID] = sc
	}
	p := &Plan{reg: reg, suite: s, opts: Options{Pacing: pacing}}
	srv := replay.NewUnstartedServer()
	srv.Faults = faults.FromSpec
	srv.RunIdle, srv.MaxRuns = ServeRunIdle, ServeMaxRuns
	srv.Open = func(id, model string) ([]string, func(string) (http.RoundTripper, error), error) {
		sc := byID[id]
		if sc == nil {
			return nil, nil, fmt.Errorf("the suite has no scenario %q", id)
		}
		if !slices.Contains(sc.Models, model) {
			return nil, nil, fmt.Errorf("scenario %s has no run on %q (its models: %v)", id, model, sc.Models)
		}
		return p.adaptersOf(sc, model), func(provider string) (http.RoundTripper, error) {
			return p.transport(provider, sc, model)
		}, nil
	}
	return srv, nil
}

// CassetteName is the path of a run's cassette for provider in a suite's
// cassettes, slash-separated.
func CassetteName(sc *harness.Scenario, model, provider string) string {
	return filepath.ToSlash(harness.CassettePath("", sc, model, provider))
}
