package harness_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
)

// countedPlayer is a replay.Player that counts the requests it serves
// (its other methods, Unused and Provenance, are the Player's).
type countedPlayer struct {
	*replay.Player
	served *int
	mu     *sync.Mutex
}

func (p countedPlayer) RoundTrip(req *http.Request) (*http.Response, error) {
	p.mu.Lock()
	*p.served++
	p.mu.Unlock()
	return p.Player.RoundTrip(req)
}

// TestEachCassetteLoadedOncePerRun replays multi-call families of the
// built-in suite (several requests to one provider per run, and runs
// that use two providers) with a Transport that loads each cassette as
// the default one does and counts the loads: every cassette a run uses
// is loaded once, however many requests it serves. (swap/substitutability
// is left out: same_as repeats each run on its reference model, a run of
// its own that loads the reference's cassette again.)
func TestEachCassetteLoadedOncePerRun(t *testing.T) {
	type key struct{ provider, scenario, model string }
	var (
		mu     sync.Mutex
		loads  = map[key]int{}
		served = map[key]*int{}
	)
	cfg := harness.Config{
		ScenarioDir: "../scenarios", CassetteDir: "../cassettes", NoGoldens: true, Factories: factories(), Faults: faults.FromSpec,
		IDs:      []string{"swap/*", "tools/*"},
		Skip:     []string{"swap/substitutability"},
		Parallel: 4,
		Transport: func(provider string, sc *scenario.Scenario, model string) (http.RoundTripper, error) {
			p, err := replay.Load(scenario.CassettePath("../cassettes", sc, model, provider))
			if err != nil {
				return nil, err
			}
			k := key{provider, sc.ID, model}
			mu.Lock()
			defer mu.Unlock()
			loads[k]++
			if served[k] == nil {
				served[k] = new(int)
			}
			return countedPlayer{Player: p, served: served[k], mu: &mu}, nil
		},
	}
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, res.Runs)
	for _, r := range res.Runs {
		assert.NotEqual(t, harness.StatusFail, r.Status, "%s: %s", r.Name(), r.Reason)
	}

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, loads, "no run loaded a cassette")
	multi, providers := 0, map[[2]string]int{}
	for k, n := range loads {
		assert.Equal(t, 1, n, "%s on %s loaded cassettes/%s %d times in one run", k.scenario, k.model, k.provider, n)
		if *served[k] > 1 {
			multi++
		}
		providers[[2]string{k.scenario, k.model}]++
	}
	twoProviders := 0
	for _, n := range providers {
		if n > 1 {
			twoProviders++
		}
	}
	assert.Positive(t, multi, "no cassette served more than one request: the test shows nothing about reuse")
	assert.Positive(t, twoProviders, "no run used two providers' cassettes")
	t.Logf("%d runs, %d cassettes loaded, %d of them serving several requests, %d runs on two providers", len(res.Runs), len(loads), multi, twoProviders)
}
