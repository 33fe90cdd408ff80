package execadapter_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
)

// stressEnv sets how many times TestShimStress certifies its scenarios.
const stressEnv = "METIS_SHIM_STRESS"

// TestShimStress certifies one provider's column on some scenarios
// through the shim again and again, to shake out a rare hang between
// metis and a child (a lost wake-up, a line no one answers): off unless
// METIS_SHIM_STRESS names the number of rounds. METIS_SHIM_STRESS_IDS
// (comma-separated globs, default retry/*,cancel/*) and
// METIS_SHIM_STRESS_PROVIDER (default vertex) choose the runs; six run at
// once. A hung child's goroutines are in the failure (HangSignal).
//
// METIS_SHIM_STRESS_BUDGET (a duration, such as 1ms) sets the
// certification's real-time wait budget: so small a one cancels a call
// soon after each retryable failure, at a random point between the
// child's reading the answer and its sleep line, as a loaded machine can
// (the budget is real time). Runs then skip at random; only a hang
// fails.
//
//	METIS_SHIM_STRESS=50 go test -run '^TestShimStress$' ./execadapter
//	METIS_SHIM_STRESS=50 METIS_SHIM_STRESS_BUDGET=1ms go test -run '^TestShimStress$' ./execadapter
func TestShimStress(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv(stressEnv))
	if rounds <= 0 {
		t.Skip(stressEnv + " is not set")
	}
	for _, v := range []string{"GOOGLE_OAUTH_ACCESS_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(v, harness.FakeKey)
	}
	provider := os.Getenv(stressEnv + "_PROVIDER")
	if provider == "" {
		provider = "vertex"
	}
	ids := []string{"retry/*", "cancel/*"}
	if v := os.Getenv(stressEnv + "_IDS"); v != "" {
		ids = strings.Split(v, ",")
	}
	srv, err := replay.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	target := certify.Target{Provider: provider, Kind: "exec", Command: shim,
		New: execadapter.Factory(execadapter.Options{Command: []string{shim}, HangSignal: hangSignal})}
	var budget time.Duration
	if v := os.Getenv(stressEnv + "_BUDGET"); v != "" {
		if budget, err = time.ParseDuration(v); err != nil {
			t.Fatalf("%s_BUDGET: %v", stressEnv, err)
		}
	}
	plan, err := certify.NewPlan(target, certify.Options{Server: srv, IDs: ids, WaitBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	// The first round's outcomes are the reference: a run's outcome must
	// not change from round to round.
	first := map[string]harness.Status{}
	for i := range rounds {
		report, err := plan.Certify(context.Background(), 6, nil)
		if err != nil {
			t.Fatal(err)
		}
		results := report.Results()
		if len(results) == 0 {
			t.Fatalf("no scenario matches %q", ids)
		}
		for _, res := range results {
			for _, f := range res.Findings {
				if f.ID == "exec/timeout" {
					t.Errorf("round %d: %s hung: %s", i+1, res.Name(), f.Message)
				}
			}
			if budget > 0 {
				continue
			}
			want, seen := first[res.Name()]
			if !seen {
				first[res.Name()] = res.Status
				continue
			}
			if res.Status != want {
				t.Errorf("round %d: %s: %s, was %s in round 1: %s", i+1, res.Name(), res.Status, want, res.Reason)
				for _, f := range res.Findings {
					t.Logf("  %s", f)
				}
			}
		}
		for _, res := range results {
			if i == 0 && budget == 0 && res.Status == harness.StatusFail {
				t.Errorf("round 1: %s: %s", res.Name(), res.Reason)
			}
		}
		if t.Failed() {
			return
		}
		t.Logf("round %d: %d runs, no hang, outcomes unchanged", i+1, len(results))
	}
}
