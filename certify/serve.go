package certify

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
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
// cassettes are replayed with pacing between server-sent events. Each
// run has a virtual clock (POST /runs/{id}/sleep, GET /runs/{id}/clock:
// serveClock), so that an adapter asks the server to sleep instead of
// waiting its backoff out. It keeps
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
	byID := map[string]*scenario.Scenario{}
	for _, sc := range scs {
		byID[sc.ID] = sc
	}
	p := &Plan{reg: reg, suite: s, opts: Options{Pacing: pacing}}
	srv := replay.NewUnstartedServer()
	srv.Config.Handler = newServeClock(srv)
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
func CassetteName(sc *scenario.Scenario, model, provider string) string {
	return filepath.ToSlash(scenario.CassettePath("", sc, model, provider))
}

// ServeClockStart is where every run's virtual clock on `conform serve`
// starts: the harness's own start, so that a Retry-After date in the
// suite is the same wait there as in a certification.
var ServeClockStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// serveClock gives each run of a replay server a virtual clock: POST
// /runs/{id}/sleep {"ms": N} moves the run's clock N milliseconds and
// answers at once with {"now", "slept_ms"} (the run's clock and the
// total slept); GET /runs/{id}/clock answers the same without moving
// it. An adapter developed against `conform serve` sleeps its backoff
// there — as it sleeps on adapters.Config.Clock in process and with the
// stdio protocol's sleep line — and reads Retry-After dates against
// now. Everything else goes to the server. A clock is forgotten with
// its run (DELETE /runs/{id}), and the clocks kept are bounded as the
// runs are.
type serveClock struct {
	srv  *replay.Server
	next http.Handler
	mux  *http.ServeMux

	mu    sync.Mutex
	slept map[string]time.Duration
	order []string // run ids, oldest clock first
}

func newServeClock(srv *replay.Server) *serveClock {
	c := &serveClock{srv: srv, next: srv, slept: map[string]time.Duration{}}
	c.mux = http.NewServeMux()
	c.mux.HandleFunc("POST /runs/{id}/sleep", c.sleep)
	c.mux.HandleFunc("GET /runs/{id}/clock", c.show)
	c.mux.HandleFunc("DELETE /runs/{id}", func(w http.ResponseWriter, req *http.Request) {
		c.forget(req.PathValue("id"))
		c.next.ServeHTTP(w, req)
	})
	c.mux.Handle("/", srv)
	return c
}

func (c *serveClock) ServeHTTP(w http.ResponseWriter, req *http.Request) { c.mux.ServeHTTP(w, req) }

// known reports whether the server has run id, asking it as a client
// would (which also counts as using the run).
func (c *serveClock) known(id string) bool {
	rec := httptest.NewRecorder()
	c.next.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/runs/"+id, nil))
	return rec.Code == http.StatusOK
}

func (c *serveClock) sleep(w http.ResponseWriter, req *http.Request) {
	id := req.PathValue("id")
	var body struct {
		MS *int64 `json:"ms"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, req.Body, 1<<10)).Decode(&body); err != nil || body.MS == nil || *body.MS < 0 {
		clockError(w, http.StatusBadRequest, "bad_request", `the body must be {"ms": N}, N milliseconds >= 0`)
		return
	}
	if !c.known(id) {
		clockError(w, http.StatusNotFound, "unknown_run", fmt.Sprintf("no run %q (POST /runs creates one)", id))
		return
	}
	c.mu.Lock()
	if _, ok := c.slept[id]; !ok {
		c.order = append(c.order, id)
		if max := c.srv.MaxRuns; max > 0 && len(c.order) > max {
			delete(c.slept, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.slept[id] += time.Duration(*body.MS) * time.Millisecond
	slept := c.slept[id]
	c.mu.Unlock()
	writeClock(w, slept)
}

func (c *serveClock) show(w http.ResponseWriter, req *http.Request) {
	id := req.PathValue("id")
	if !c.known(id) {
		clockError(w, http.StatusNotFound, "unknown_run", fmt.Sprintf("no run %q (POST /runs creates one)", id))
		return
	}
	c.mu.Lock()
	slept := c.slept[id]
	c.mu.Unlock()
	writeClock(w, slept)
}

func (c *serveClock) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.slept, id)
	c.order = slices.DeleteFunc(c.order, func(x string) bool { return x == id })
}

func writeClock(w http.ResponseWriter, slept time.Duration) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{ //nolint:errcheck // the client hung up
		"now": ServeClockStart.Add(slept).Format(time.RFC3339Nano), "slept_ms": slept.Milliseconds(),
	})
}

func clockError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"type": typ, "message": msg}}) //nolint:errcheck // the client hung up
}
