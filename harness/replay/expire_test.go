package replay_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a server clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// runIDs lists the server's runs by id (GET /runs).
func runIDs(t *testing.T, url string) []string {
	t.Helper()
	code, data := do(t, "GET", url+"/runs", "")
	require.Equal(t, http.StatusOK, code, string(data))
	var list struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(data, &list))
	ids := []string{}
	for _, r := range list.Runs {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestServerForgetsIdleRuns: a run unused for longer than RunIdle on the
// server's clock is gone (404 naming the rule); a run used meanwhile, by
// its provider traffic or a control call, stays.
func TestServerForgetsIdleRuns(t *testing.T) {
	srv := newServer(t)
	clock := &fakeClock{now: time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)}
	srv.Now, srv.RunIdle = clock.Now, time.Hour
	createRun(t, srv, "kept")
	createRun(t, srv, "idle")
	createRun(t, srv, "polled")
	clock.advance(50 * time.Minute)
	code, data := do(t, "POST", srv.URL+"/runs/kept/anthropic/v1/messages", hiRequest)
	require.Equal(t, http.StatusOK, code, string(data))
	code, _ = do(t, "GET", srv.URL+"/runs/polled", "")
	require.Equal(t, http.StatusOK, code)
	clock.advance(10*time.Minute + time.Second)
	assert.Equal(t, []string{"kept", "polled"}, runIDs(t, srv.URL), "idle for 1h0m1s, the run is forgotten")
	code, data = do(t, "GET", srv.URL+"/runs/idle", "")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, string(data), "this server forgets runs unused for 1h0m0s")
	clock.advance(time.Hour)
	assert.Equal(t, []string{}, runIDs(t, srv.URL))
}

// TestServerCapsItsRuns: with MaxRuns set, a new run beyond the cap
// evicts the run unused for the longest, whatever the order the runs
// were made in, so the server never holds more than the cap.
func TestServerCapsItsRuns(t *testing.T) {
	srv := newServer(t)
	clock := &fakeClock{now: time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)}
	srv.Now, srv.MaxRuns = clock.Now, 3
	for _, id := range []string{"a", "b", "c"} {
		createRun(t, srv, id)
		clock.advance(time.Second)
	}
	code, _ := do(t, "GET", srv.URL+"/runs/a", "") // a is now the most recently used
	require.Equal(t, http.StatusOK, code)
	clock.advance(time.Second)
	createRun(t, srv, "d")
	assert.Equal(t, []string{"a", "c", "d"}, runIDs(t, srv.URL), "b, unused longest, is evicted")
	for i := range 20 {
		clock.advance(time.Second)
		createRun(t, srv, fmt.Sprintf("n%d", i))
		assert.Len(t, runIDs(t, srv.URL), 3, "after %d more runs", i+1)
	}
	code, data := do(t, "GET", srv.URL+"/runs/b", "")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, string(data), "the run unused longest once it holds 3")
}
