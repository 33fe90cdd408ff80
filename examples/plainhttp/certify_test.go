package plainhttp_test

import (
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/conformtest"
	"github.com/metis-llm/metis/examples/plainhttp"
	"github.com/metis-llm/metis/harness"
)

// The example certifies as Anthropic's adapter on the text scenarios it
// claims: plain calls streamed and not, retries and cancellation.
func TestCertify(t *testing.T) {
	report := conformtest.Run(t, "anthropic", plainhttp.New,
		conformtest.Scenarios("basic/plain-text", "retry/*", "cancel/during-backoff", "cancel/before-first-byte"),
		conformtest.Adapter("plainhttp", "v0.1.0"))
	if !report.Certified {
		t.Errorf("%s", report.Verdict())
	}
}

// Sleeping on real timers (no Config.Clock), its waits are judged from
// the timing of its requests; a wait beyond the budget skips its run.
func TestCertifyRealTimers(t *testing.T) {
	if testing.Short() {
		t.Skip("waits in real time")
	}
	realTime := func(c adapters.Config) (*plainhttp.Adapter, error) {
		c.Clock = nil
		return plainhttp.New(c)
	}
	report := conformtest.Run(t, "anthropic", realTime, conformtest.Scenarios("retry/retry-after-seconds", "retry/retry-after-capped"))
	for _, r := range report.Runs {
		want := harness.StatusPass
		if r.Scenario == "retry/retry-after-capped" {
			want = harness.StatusSkip // a 60 s wait is beyond the budget
		}
		if r.Status != want {
			t.Errorf("%s: %s, want %s", r.Scenario, r.Status, want)
		}
	}
}
