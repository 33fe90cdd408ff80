package harness_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
)

const stallScenario = `
id: inline
title: a response that never comes
models: [anthropic:claude-sonnet-4-6]
%s
steps:
  - user: hi
  - inject: {kind: stall}
  - call:
      stream: true
      reply: {text: never seen}
    expect:
      error: {class: network, code: timeout}
      attempts: 1
`

// TestRunTimeout: a run ends at its scenario's run_timeout, which wins
// over Config.RunTimeout (conform run --run-timeout), which wins over the
// default; the run says which one it reached.
func TestRunTimeout(t *testing.T) {
	for _, tt := range []struct {
		name, key string
		cfg       time.Duration
		want      string
	}{
		{"scenario key", "run_timeout: 200ms", time.Hour, "run timeout of 200ms (the scenario's run_timeout)"},
		{"config", "", 300 * time.Millisecond, "run timeout of 300ms (--run-timeout / Config.RunTimeout)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := emulated(t)
			cfg.RunTimeout = tt.cfg
			// A server that never answers and that no virtual timer ends
			// (a stall fault's silence ends at once through the adapter's
			// timeouts on the run's clock: faults.OnStall): only the run
			// timeout can end the call.
			cfg.Faults = func(map[string]any, http.RoundTripper) (http.RoundTripper, error) {
				return roundTrip(func(req *http.Request) (*http.Response, error) {
					<-req.Context().Done()
					return nil, req.Context().Err()
				}), nil
			}
			res := runInline(t, cfg, strings.Replace(stallScenario, "%s", tt.key, 1))
			assert.Equal(t, harness.StatusPass, res.Status, res.Reason)
			var msgs []string
			for _, f := range res.Findings {
				if f.ID == "run/timeout" {
					msgs = append(msgs, f.Message)
				}
			}
			require.Len(t, msgs, 1, "%v", res.Findings)
			assert.Contains(t, msgs[0], tt.want)
		})
	}
}

func TestRunTimeoutKey(t *testing.T) {
	sc, err := scenario.Parse("x.yaml", []byte(strings.Replace(stallScenario, "%s", "run_timeout: 1m30s", 1)))
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, sc.RunTimeout)
	for _, bad := range []string{"abc", "0s", "10", "-1s"} {
		_, err := scenario.Parse("x.yaml", []byte(strings.Replace(stallScenario, "%s", "run_timeout: "+bad, 1)))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "x.yaml:5:", "names the line of run_timeout")
		assert.Contains(t, err.Error(), "run_timeout")
	}
}
